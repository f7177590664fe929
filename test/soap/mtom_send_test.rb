# frozen_string_literal: true

require_relative "soap_test_support"
require_relative "interop/interop_support"
require "digest"
require "json"

# MTOM/XOP on the way out: the client sends large :base64 values as
# attachments (mtom:), read back byte for byte by wirebind's service and by
# spyne's; the service answers with MTOM (to an MTOM request, or always),
# read by wirebind's client and by zeep.
class SOAPMTOMSendTest < Minitest::Test
  include PeerServer

  PYTHON = "/usr/bin/python3"
  W = Wirebind::SOAP
  NS = "urn:mtom:send"
  # Every byte value, CRLFs, NULs and a line that looks like a boundary.
  BYTES = ((0..255).map(&:chr).join.b * 40) + "\r\n--MIME_wirebind_x\r\n\r\n\0\0\r\n".b

  class Photo
    include Wirebind::Model
    xml_namespace NS
    attribute :title, :string
    attribute :data, :base64
    attribute :thumbnails, [:base64], xml: "thumbnail"
  end

  class Album
    include Wirebind::Model
    xml_namespace NS
    attribute :name, :string
    attribute :photos, [Photo], xml: "photo"
  end

  class SendService < Wirebind::SOAP::Service
    namespace NS
    version :both
    operation :upload, args: { name: :string, data: :base64 }, returns: :string do |name, data|
      "#{name}: #{data.bytesize} #{Digest::SHA256.hexdigest(data)}"
    end
    operation :album, args: { album: Album }, returns: :string do |album|
      album.photos.map { |photo| "#{photo.title}:#{Digest::SHA256.hexdigest(photo.data)}:#{photo.thumbnails.map(&:bytesize).join(',')}" }.join(" ")
    end
  end

  # Answers every response with MTOM when a value is large enough.
  class DownloadService < Wirebind::SOAP::Service
    namespace NS
    mtom threshold: 1024
    operation :download, args: { size: :integer }, returns: :base64 do |size|
      SOAPMTOMSendTest.bytes(size)
    end
  end

  # +size+ bytes of BYTES, repeated.
  def self.bytes(size)
    (BYTES * ((size / BYTES.bytesize) + 1)).byteslice(0, size)
  end

  def python_with?(package)
    File.executable?(PYTHON) && system(PYTHON, "-c", "import #{package}", out: File::NULL, err: File::NULL)
  end

  def sha(bytes)
    Digest::SHA256.hexdigest(bytes)
  end

  # Calls with a client whose debug hook keeps the request's headers and body.
  def with_client(url, debug: nil, **options)
    requests = []
    hook = lambda do |event, data|
      requests << data if event == :request
      debug&.call(event, data)
    end
    client = W::Client.new(endpoint: url, namespace: NS, debug: hook, **options)
    yield client, requests
  ensure
    client&.close
  end

  def test_large_base64_parts_go_as_attachments
    Interop::Server.open(SendService.new) do |server|
      { "1.1" => "text/xml", "1.2" => "application/soap+xml" }.each do |version, media|
        with_client(server.url, version: version, mtom: { threshold: 1024 }) do |client, requests|
          result = client.call(:upload, { name: "big", data: BYTES }, types: { data: :base64 }, returns: :string)
          assert_equal "big: #{BYTES.bytesize} #{sha(BYTES)}", result
          request = requests.last
          assert_match(%r{\Amultipart/related; type="application/xop\+xml"; start="<[^>]+>"; start-info="#{Regexp.escape(media)}"; boundary="}, request[:headers]["Content-Type"])
          assert_includes request[:body], %(<xop:Include xmlns:xop="#{W::MTOM::XOP_NS}" href="cid:0.)
          assert_includes request[:body], BYTES, "the attachment's bytes, as they are"
          refute_includes request[:body], [BYTES].pack("m0")[0, 64], "no base64 of the attachment"

          small = "x\0y".b * 10
          assert_equal "small: 30 #{sha(small)}", client.call(:upload, { name: "small", data: small }, types: { data: :base64 }, returns: :string)
          assert_match(/\A#{Regexp.escape(media)}/, requests.last[:headers]["Content-Type"], "below the threshold: plain XML")
        end
      end
    end
  end

  def test_base64_attributes_of_nested_models_go_as_attachments
    Interop::Server.open(SendService.new) do |server|
      photos = [Photo.new(title: "a", data: BYTES, thumbnails: [BYTES.byteslice(0, 2000), "tiny".b]),
                Photo.new(title: "b", data: BYTES.reverse, thumbnails: [])].freeze
      album = Album.new(name: "holiday", photos: photos)
      with_client(server.url, mtom: { threshold: 1024 }) do |client, requests|
        expected = "a:#{sha(BYTES)}:2000,4 b:#{sha(BYTES.reverse)}:"
        assert_equal expected, client.call(:album, { album: album }, returns: :string)
        assert_equal 3, requests.last[:body].scan("<xop:Include").size
        assert_same photos, album.photos, "the caller's models are not changed"
        assert_equal BYTES, album.photos.first.data
      end
    end
  end

  def test_the_service_answers_mtom
    Interop::Server.open(DownloadService.new) do |server|
      responses = []
      client = W::Client.new(endpoint: server.url, namespace: NS, debug: ->(event, data) { responses << data[:headers] if event == :response })
      [1, 1023, 1024, 300_000].each do |size|
        assert_equal self.class.bytes(size), client.call(:download, { size: size }, returns: :base64), size
        expected = size >= 1024 ? %r{\Amultipart/related; type="application/xop\+xml"} : %r{\Atext/xml}
        assert_match expected, responses.last["content-type"], size
      end
      limited = W::Client.new(endpoint: server.url, namespace: NS, max_size: 100_000)
      error = assert_raises(W::AttachmentError) { limited.call(:download, { size: 300_000 }, returns: :base64) }
      assert_match(/larger than 100000 bytes/, error.message)
    ensure
      client&.close
      limited&.close
    end
  end

  # The default (:request): an MTOM request gets an MTOM response; a plain one a plain one.
  def test_the_service_answers_an_mtom_request_with_mtom
    echo = Class.new(Wirebind::SOAP::Service) do
      namespace NS
      operation(:echo, args: { data: :base64 }, returns: :base64) { |data| data }
    end
    Interop::Server.open(echo.new) do |server|
      [true, false].each do |mtom|
        responses = []
        with_client(server.url, mtom: mtom, debug: ->(event, data) { responses << data[:headers] if event == :response }) do |client, _|
          assert_equal BYTES, client.call(:echo, { data: BYTES }, types: { data: :base64 }, returns: :base64)
          assert_equal mtom, responses.last["content-type"].start_with?("multipart/related"), "mtom: #{mtom}"
        end
      end
    end
  end

  def test_zeep_reads_mtom_responses
    require_peer(python_with?("zeep"), "zeep (python3-zeep for #{PYTHON})")
    Interop::Server.open(DownloadService.new) do |server|
      sizes = [10, 5000, 1_000_000]
      status, out, err = PeerServer.run([PYTHON, File.join(__dir__, "interop", "zeep_mtom_client.py"), server.url, *sizes.map(&:to_s)], timeout: 60)
      assert status.success?, "zeep failed: #{out}\n#{err}"
      expected = sizes.to_h { |size| [size.to_s, [size, sha(self.class.bytes(size))]] }
      assert_equal expected, JSON.parse(out.lines.last)
    end
  end

  def test_spyne_reads_mtom_requests
    require_peer(python_with?("spyne"), "spyne (python3-spyne for #{PYTHON})")
    port = PeerServer.free_port
    pid = PeerServer.start([PYTHON, File.join(__dir__, "interop", "python", "spyne_mtom_server.py"), port.to_s], port)
    with_client("http://127.0.0.1:#{port}/", mtom: { threshold: 1024 }, soap_action: "upload") do |client, requests|
      [BYTES, self.class.bytes(1_000_000)].each do |bytes|
        result = client.call(:upload, { name: "big", data: bytes }, types: { data: :base64 }, returns: :string)
        assert_equal "big: #{bytes.bytesize} #{sha(bytes)}", result
        assert_includes requests.last[:body], "<xop:Include"
      end
    end
  ensure
    PeerServer.stop(pid) if pid
  end

  def test_bad_options_are_argument_errors
    assert_raises(ArgumentError) { W::Client.new(endpoint: "http://127.0.0.1:1/", mtom: { threshold: -1 }) }
    assert_raises(ArgumentError) { W::Client.new(endpoint: "http://127.0.0.1:1/", mtom: { size: 1 }) }
    assert_raises(ArgumentError) { W::Client.new(endpoint: "http://127.0.0.1:1/", mtom: "yes") }
  end
end
