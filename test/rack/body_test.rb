# frozen_string_literal: true

require "test_helper"
require "stringio"
require "net/http"

# Wirebind::Rack::Body under Rack::Lint and under a real server (Puma on
# 127.0.0.1, an ephemeral port) read by a client as it streams. Wirebind
# itself never loads rack; these tests do.
class RackBodyTest < Minitest::Test
  class Version
    include Wirebind::Model
    attribute :id, :string
    attribute :name, :string
  end

  class Issue
    include Wirebind::Model
    xml_root "issue"
    attribute :key, :string
    attribute :summary, :string
    attribute :votes, :integer
    attribute :versions, [Version], xml: "versions/version"
  end

  class VersionSerializer < Wirebind::Serializer
    type "version"
    attributes :name
    link(:self) { |version| "/versions/#{version.id}" }
  end

  class IssueSerializer < Wirebind::Serializer
    type "issue"
    id :key
    attributes :summary, :votes
    many :versions, VersionSerializer
    link(:self) { |issue, ctx| "#{ctx[:base]}/issues/#{issue.key}" }
  end

  PIECE = Wirebind::Rack::Body::PIECE_SIZE

  # Enough issues for several pieces in every format; multi-byte text, so
  # that pieces cut characters.
  def issues(count = 1500)
    Array.new(count) do |i|
      Issue.new(key: "WB-#{i}", summary: "Summary «#{i}» — café ✓ " * 2, votes: i,
                versions: [Version.new(id: "v#{i}", name: "1.#{i}")])
    end
  end

  def expected_document(value, format, **options)
    case format
    when :xml then Wirebind::XML.encode(value, **options)
    when :json then Wirebind::JSON.encode(value)
    else IssueSerializer.new(value, format: format, **options).to_json
    end
  end

  def lint(app)
    require "rack"
    require "rack/lint"
    require "rack/mock_request"
    ::Rack::Lint.new(app)
  end

  def assert_pieces(pieces, document)
    assert pieces.size > 1, "a document of #{document.bytesize} bytes comes in several pieces"
    assert pieces[0...-1].all? { |piece| piece.bytesize == PIECE }, "every piece but the last is 64 KiB"
    assert_operator pieces.last.bytesize, :<=, PIECE
    assert_equal pieces.size, pieces.map(&:object_id).uniq.size, "each piece is a String of its own"
    assert_equal document.b, pieces.join.b
  end

  def test_every_format_under_rack_lint_as_an_enumerable_body
    value = issues
    { xml: { root: "issues", item: "issue" }, json: {}, hal: { serializer: IssueSerializer, context: { base: "/api" } },
      json_api: { serializer: IssueSerializer, include: "versions" }, siren: { serializer: IssueSerializer } }.each do |format, options|
      app = lint(->(_env) { Wirebind::Rack.response(value, format: format, headers: { "cache-control" => "no-store" }, **options) })
      status, headers, body = app.call(::Rack::MockRequest.env_for("/issues"))
      pieces = []
      body.each { |piece| pieces << piece.dup }
      body.close
      assert_equal 200, status
      assert_equal Wirebind::Rack::CONTENT_TYPES.fetch(format), headers["content-type"]
      assert_equal "no-store", headers["cache-control"]
      document = expected_document(value, format, **options.except(:serializer))
      assert_pieces(pieces, document)
    end
  end

  def test_a_serializer_instance_and_a_streaming_body_under_rack_lint
    serializer = IssueSerializer.new(issues, format: :hal, context: { base: "/api" })
    body = Wirebind::Rack::Body.new(serializer)
    assert_equal "application/hal+json", body.content_type
    app = lint(->(_env) { [200, { "content-type" => body.content_type }, ->(stream) { body.call(stream) }] })
    _, _, streaming = app.call(::Rack::MockRequest.env_for("/"))
    stream = RecordingStream.new
    streaming.call(stream)
    assert stream.closed?
    assert_pieces(stream.pieces, serializer.to_json)
    assert_equal "application/json", Wirebind::Rack::Body.new(IssueSerializer.new(issues(1))).content_type
  end

  # A stream as Rack 3 describes it, keeping each piece written.
  class RecordingStream < StringIO
    attr_reader :pieces

    def initialize
      super(+"")
      @pieces = []
    end

    def write(*texts)
      @pieces.concat(texts)
      super
    end
  end

  def test_wirebind_does_not_load_rack
    require_ruby_subprocess
    lib = File.expand_path("../../lib", __dir__)
    script = 'require "wirebind"; body = Wirebind::Rack::Body.new([1], format: :json); ' \
             'print body.each.to_a.join, " ", defined?(::Rack).inspect'
    output = IO.popen([RbConfig.ruby, "-I", lib, "-e", script], err: %i[child out], &:read)
    assert_equal "[1] nil", output
  end

  # The README's Rails section, as the plain Rack application it boils down to.
  def test_the_readme_controller_shape
    app = lint(lambda do |_env|
      body = Wirebind::Rack::Body.new(IssueSerializer.new(issues(2), format: :json_api, include: "versions"))
      [200, { "content-type" => body.content_type }, body]
    end)
    status, headers, body = app.call(::Rack::MockRequest.env_for("/issues"))
    text = +""
    body.each { |piece| text << piece }
    body.close
    assert_equal [200, "application/vnd.api+json"], [status, headers["content-type"]]
    assert_equal(%w[issue issue], ::JSON.parse(text)["data"].map { |resource| resource["type"] })
  end

  def test_arguments_are_checked
    assert_raises(ArgumentError) { Wirebind::Rack::Body.new([], format: :yaml) }
    assert_raises(ArgumentError) { Wirebind::Rack::Body.new([], format: :hal) }
    assert_raises(ArgumentError) { Wirebind::Rack::Body.new([], format: :json, serializer: IssueSerializer) }
    assert_raises(ArgumentError) { Wirebind::Rack::Body.new(IssueSerializer.new([]), format: :hal) }
  end

  # Rails' response buffer (ActionDispatch::Response, under Rack::ETag) runs the
  # body once to digest it, then the server runs it again: the second run
  # replays the first, byte for byte, and close removes what was kept.
  def test_each_again_replays_the_first_run
    spilled = issues(8000)
    assert_operator Wirebind::JSON.encode(spilled).bytesize, :>, Wirebind::Rack::Body::KEPT_IN_MEMORY, "one run goes to a Tempfile"
    [[], issues(20), issues(1500), spilled].each do |value|
      body = Wirebind::Rack::Body.new(value, format: :json)
      first = body.each.to_a
      second = []
      body.each { |piece| second << piece }
      third = body.each.to_a
      assert_equal Wirebind::JSON.encode(value).b, first.join.b
      assert_equal first, second
      assert_equal first, third
      body.close
      assert_raises(IOError) { body.each { nil } }
    end
  end

  def test_a_digesting_middleware_then_the_server_under_etag_and_conditional_get
    require "rack"
    require "rack/etag"
    require "rack/conditional_get"
    require "digest"
    value = issues(1500)
    digesting = lambda do |_env|
      # What Rails' response buffer does: reads the body (each) to digest it, hands the same body on.
      status, headers, body = Wirebind::Rack.response(value, format: :hal, serializer: IssueSerializer)
      digest = Digest::SHA256.new
      body.each { |piece| digest << piece }
      headers["etag"] = %(W/"#{digest.hexdigest}")
      [status, headers, body]
    end
    app = lint(::Rack::ConditionalGet.new(::Rack::ETag.new(digesting)))
    status, headers, body = app.call(::Rack::MockRequest.env_for("/issues"))
    text = +""
    body.each { |piece| text << piece }
    body.close
    assert_equal 200, status
    assert_equal IssueSerializer.new(value, format: :hal).to_json.b, text.b
    assert_equal %(W/"#{Digest::SHA256.hexdigest(text)}"), headers["etag"]

    status, = app.call(::Rack::MockRequest.env_for("/issues", "HTTP_IF_NONE_MATCH" => headers["etag"]))
    assert_equal 304, status
  end

  def test_an_encode_error_in_the_first_run_is_raised_again
    body = Wirebind::Rack::Body.new([Issue.new(key: "x", votes: "many")], format: :json)
    assert_raises(Wirebind::EncodeError) { body.each { nil } }
    assert_raises(Wirebind::EncodeError) { body.each { nil } }
  end

  def test_an_encode_error_while_streaming_is_raised
    body = Wirebind::Rack::Body.new([Issue.new(key: "x", votes: "many")], format: :json)
    assert_raises(Wirebind::EncodeError) { body.each { nil } }
  end

  def test_a_real_server_streams_the_body_to_a_client
    require "puma"
    require "puma/server"
    value = issues(3000)
    document = IssueSerializer.new(value, format: :hal, context: { base: "/api" }).to_json
    app = lambda do |env|
      status, headers, body = Wirebind::Rack.response(value, format: :hal, serializer: IssueSerializer, context: { base: "/api" })
      # A body that answers only call: the server streams it.
      streaming = ->(stream) { body.call(stream) }
      [status, headers, env["PATH_INFO"] == "/streaming" ? streaming : body]
    end
    server = Puma::Server.new(app, nil, min_threads: 0, max_threads: 2, log_writer: Puma::LogWriter.null)
    server.add_tcp_listener("127.0.0.1", 0)
    thread = server.run
    port = server.connected_ports.first
    %w[/enumerable /streaming].each do |path|
      chunks = []
      content_type = nil
      Net::HTTP.start("127.0.0.1", port, open_timeout: 5, read_timeout: 30) do |http|
        http.request_get(path) do |response|
          assert_equal "200", response.code
          content_type = response["content-type"]
          response.read_body { |chunk| chunks << chunk }
        end
      end
      assert_equal "application/hal+json", content_type, path
      assert_operator chunks.size, :>, 1, "#{path}: the client reads the body in several chunks"
      assert_equal document.b, chunks.join.b, path
    end
  ensure
    server&.stop(true)
    thread&.join(5)
  end
end
