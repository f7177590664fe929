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

# Received attachments streamed to Tempfiles (attachment_file_threshold:)
# instead of memory: the client's results and the service's arguments, byte
# for byte, files removed when a call fails or an operation returns, and the
# memory a large attachment takes bounded.
class SOAPMTOMFilesTest < Minitest::Test
  W = Wirebind::SOAP
  NS = SOAPMTOMSendTest::NS
  BYTES = SOAPMTOMSendTest::BYTES
  Photo = SOAPMTOMSendTest::Photo

  SEEN = Queue.new

  class FileService < Wirebind::SOAP::Service
    namespace NS
    mtom threshold: 1024
    attachment_file_threshold 4096
    operation :download, args: { size: :integer }, returns: :base64 do |size|
      SOAPMTOMSendTest.bytes(size)
    end
    operation :photo, args: { size: :integer }, returns: Photo do |size|
      Photo.new(title: "p", data: SOAPMTOMSendTest.bytes(size), thumbnails: [BYTES, "tiny".b, SOAPMTOMSendTest.bytes(size).reverse])
    end
    operation :upload, args: { data: :base64 }, returns: :string do |data|
      SEEN << (data.is_a?(Tempfile) ? data.path : nil)
      bytes = data.is_a?(Tempfile) ? data.read : data
      "#{data.class.name}: #{bytes.bytesize} #{Digest::SHA256.hexdigest(bytes)}"
    end
  end

  def test_the_client_streams_large_attachments_to_files
    Interop::Server.open(FileService.new) do |server|
      client = W::Client.new(endpoint: server.url, namespace: NS, attachment_file_threshold: 4096)
      file = client.call(:download, { size: 300_000 }, returns: :base64)
      assert_kind_of Tempfile, file
      assert_equal SOAPMTOMSendTest.bytes(300_000), file.read
      assert_equal Encoding::BINARY, file.external_encoding
      file.close!
      assert_equal SOAPMTOMSendTest.bytes(4095), client.call(:download, { size: 4095 }, returns: :base64), "below: a String"

      photo = client.call(:photo, { size: 50_000 }, returns: Photo)
      assert_equal [Tempfile, String, Tempfile], photo.thumbnails.map(&:class)
      assert_equal([BYTES, "tiny", SOAPMTOMSendTest.bytes(50_000).reverse], photo.thumbnails.map { |t| t.is_a?(Tempfile) ? t.read : t })
      assert_equal SOAPMTOMSendTest.bytes(50_000), photo.data.read
      [photo.data, *photo.thumbnails].grep(Tempfile).each(&:close!)

      # decoded into a :string: an AttachmentError, never the marker as text; the file removed
      error = assert_raises(W::AttachmentError) { client.call(:download, { size: 300_000 }, returns: :string) }
      assert_match(/not :base64/, error.message)
    ensure
      client&.close
    end
  end

  def test_the_service_streams_large_attachments_to_files
    Interop::Server.open(FileService.new) do |server|
      client = W::Client.new(endpoint: server.url, namespace: NS, mtom: { threshold: 1024 })
      big = SOAPMTOMSendTest.bytes(200_000)
      assert_equal "Tempfile: 200000 #{Digest::SHA256.hexdigest(big)}", client.call(:upload, { data: big }, types: { data: :base64 }, returns: :string)
      path = SEEN.pop
      refute File.exist?(path), "the request's file is removed once the operation returned"
      assert_equal "String: 2000 #{Digest::SHA256.hexdigest(BYTES.byteslice(0, 2000))}",
                   client.call(:upload, { data: BYTES.byteslice(0, 2000) }, types: { data: :base64 }, returns: :string)
    ensure
      client&.close
    end
  end

  # A reader handing out the body in pieces of 1 to 9 bytes: delimiters and
  # CRLFs cut everywhere.
  class Trickle
    def initialize(body, random)
      @body = body
      @random = random
      @at = 0
    end

    def read(_size)
      return nil if @at >= @body.bytesize

      piece = @body.byteslice(@at, @random.rand(1..9))
      @at += piece.bytesize
      piece
    end
  end

  def test_delimiters_cut_across_pieces
    seed = Random.new_seed % 100_000
    random = Random.new(seed)
    bytes = "\r\n--b\r\n--bo\r\n\r\n--bou".b + BYTES
    root = W::Envelope.write(+"", operation: "r", namespace: NS, parts: { a: "X", b: "Y" })
                      .sub(">X<", %(><xop:Include xmlns:xop="#{W::MTOM::XOP_NS}" href="cid:a"/><))
                      .sub(">Y<", %(><xop:Include xmlns:xop="#{W::MTOM::XOP_NS}" href="cid:b"/><))
    body = "preamble\r\n--bound \r\nContent-Type: application/xop+xml\r\n\r\n#{root}\r\n--bound\r\nContent-ID: <a>\r\n\r\n".b +
           bytes + "\r\n--bound\r\nContent-ID: <b>\r\n\r\n\r\n\r\n--bound--\r\n".b
    received = W::MTOM.receive(Trickle.new(body, random), %(multipart/related; boundary="bound"), file_threshold: 100)
    doc = Nokogiri::XML(received.xml)
    assert_equal ["\r\n".b].pack("m0"), doc.at_xpath("//*[local-name()='b']").text, "seed #{seed}"
    file = received.apply(doc.at_xpath("//*[local-name()='a']").text.unpack1("m"))
    assert_equal bytes, file.read, "seed #{seed}"
    received.finish
    file.close!
    error = assert_raises(W::AttachmentError) { W::MTOM.receive(Trickle.new(body.byteslice(0, body.bytesize - 40), random), %(multipart/related; boundary="bound"), file_threshold: 100) }
    assert_match(/not closed by its boundary/, error.message)
  end

  def test_bad_option
    assert_raises(ArgumentError) { W::Client.new(endpoint: "http://127.0.0.1:1/", attachment_file_threshold: -1) }
    assert_raises(ArgumentError) { Class.new(W::Service) { attachment_file_threshold "1" } }
  end

  # An adapter answering every call with an MTOM response made as it is read:
  # a root part, then an attachment of +count+ copies of +chunk+.
  class GeneratedResponse
    BOUNDARY = "generated_boundary"

    def initialize(chunk, count)
      @chunk = chunk
      @count = count
    end

    def request(_path, _headers, _body)
      root = W::Envelope.write(+"", operation: "downloadResponse", namespace: NS, parts: { r: "X" })
                        .sub(">X<", %(><xop:Include xmlns:xop="#{W::MTOM::XOP_NS}" href="cid:big@x"/><))
      pieces = ["--#{BOUNDARY}\r\nContent-Type: application/xop+xml; type=\"text/xml\"\r\n\r\n#{root}".b,
                "\r\n--#{BOUNDARY}\r\nContent-ID: <big@x>\r\nContent-Type: application/octet-stream\r\n\r\n".b]
      remaining = @count
      chunk = @chunk
      reader = Object.new
      reader.define_singleton_method(:read) do |_size|
        next pieces.shift unless pieces.empty?
        next nil if remaining.negative?

        remaining -= 1
        remaining.negative? ? "\r\n--#{BOUNDARY}--\r\n".b : chunk.dup # a new String per read, as the transports give
      end
      yield 200, { "content-type" => %(multipart/related; type="application/xop+xml"; boundary="#{BOUNDARY}") }, reader
    end

    def close; end
  end

  def peak_rss_kb
    File.read("/proc/self/status")[/VmHWM:\s*(\d+)/, 1].to_i
  end

  def rss_kb
    File.read("/proc/self/status")[/VmRSS:\s*(\d+)/, 1].to_i
  end

  # A 32 MiB attachment read with at most a few MiB more memory than before the
  # call (peak RSS, reset first): it goes to the file as it arrives.
  def test_a_large_attachment_takes_bounded_memory
    skip "needs Linux's /proc/self/clear_refs" unless File.writable?("/proc/self/clear_refs")

    chunk = ((0..255).map(&:chr).join.b + "\r\n--generated\r\n\0".b) * 240
    count = (32 * 1024 * 1024) / chunk.bytesize
    expected = Digest::SHA256.new
    count.times { expected << chunk }
    client = W::Client.new(endpoint: "http://127.0.0.1:1/", namespace: NS, adapter: GeneratedResponse.new(chunk, count),
                           attachment_file_threshold: 1024 * 1024, max_size: 64 * 1024 * 1024)
    GC.start
    before = rss_kb
    File.write("/proc/self/clear_refs", "5")
    file = client.call(:download, {}, returns: :base64)
    grown = peak_rss_kb - before
    assert_equal count * chunk.bytesize, file.size
    digest = Digest::SHA256.new
    while (piece = file.read(1024 * 1024))
      digest << piece
    end
    assert_equal expected.hexdigest, digest.hexdigest
    puts "peak RSS growth: #{grown} KiB" if ENV["SHOW_RSS"]
    assert_operator grown, :<, 12 * 1024, "peak RSS grew by #{grown} KiB reading a #{count * chunk.bytesize}-byte attachment"
  ensure
    file.close! if file.is_a?(Tempfile)
  end
end
