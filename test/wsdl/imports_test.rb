# frozen_string_literal: true

require_relative "wsdl_test_support"
require "socket"
require "stringio"
require "wirebind/cli"

module Wirebind
  # Issue 19, item 7: what a WSDL's imports may read. Local imports stay in the
  # WSDL's directory tree (or the root the user names), only regular files;
  # URLs only with fetch, under a deadline and a size cap, without redirects.
  class WSDLImportsTest < Minitest::Test
    include WSDLTestSupport

    def importing(location)
      wsdl(types: %(<xsd:schema targetNamespace="urn:test"><xsd:import namespace="urn:x" schemaLocation=#{location.encode(xml: :attr)}/></xsd:schema>))
    end

    def test_imports_outside_the_wsdl_directory_are_refused
      with_files("outside.xsd" => X_SCHEMA, "svc/inside.xsd" => X_SCHEMA) do |dir|
        outside = File.join(dir, "outside.xsd")
        ["../outside.xsd", outside, "sub/../../outside.xsd", "file://#{outside}"].each do |location|
          File.write(File.join(dir, "svc/s.wsdl"), importing(location))
          error = assert_raises(WSDL::InvalidError, location) { WSDL.load(File.join(dir, "svc/s.wsdl")) }
          assert_match(/outside|URL/, error.message, location)
          refute_match(/cannot read/, error.message, "must not reveal whether #{location} exists")
        end
        File.write(File.join(dir, "svc/s.wsdl"), importing("../outside.xsd"))
        assert_equal ["X"], WSDL.load(File.join(dir, "svc/s.wsdl"), root: dir).types.map(&:name)
        File.write(File.join(dir, "svc/s.wsdl"), importing("inside.xsd"))
        assert_equal ["X"], WSDL.load(File.join(dir, "svc/s.wsdl")).types.map(&:name)
      end
    end

    def test_a_symlink_out_of_the_tree_is_refused
      with_files("outside.xsd" => X_SCHEMA, "svc/s.wsdl" => importing("link.xsd")) do |dir|
        File.symlink(File.join(dir, "outside.xsd"), File.join(dir, "svc/link.xsd"))
        assert_match(/outside/, assert_raises(WSDL::InvalidError) { WSDL.load(File.join(dir, "svc/s.wsdl")) }.message)
      end
    end

    def test_a_fifo_is_refused_not_waited_on
      skip "no mkfifo here" unless File.respond_to?(:mkfifo)
      with_files("s.wsdl" => importing("pipe.xsd")) do |dir|
        File.mkfifo(File.join(dir, "pipe.xsd"))
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        error = assert_raises(WSDL::InvalidError) { WSDL.load(File.join(dir, "s.wsdl")) }
        assert_match(/not a regular file/, error.message)
        assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 5
      end
    end

    def test_a_url_import_without_fetch_is_a_clean_refusal
      with_files("s.wsdl" => importing("http://127.0.0.1:9/x.xsd")) do |dir|
        error = assert_raises(WSDL::InvalidError) { WSDL.load(File.join(dir, "s.wsdl")) }
        assert_match(/imports by URL are read only with fetch: true/, error.message)
      end
    end

    # As Mexico's CFDI 4.0 set ships (the cfdi40 gem): the main schema imports a
    # namespace from a local copy, another schema imports it again by its URL.
    def test_a_url_import_of_a_namespace_already_read_from_a_file_is_skipped_with_a_warning
      again = %(<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:y"><xsd:import namespace="urn:x" schemaLocation="http://127.0.0.1:9/x.xsd"/></xsd:schema>)
      types = %(<xsd:schema targetNamespace="urn:test"><xsd:import namespace="urn:x" schemaLocation="x.xsd"/><xsd:import namespace="urn:y" schemaLocation="y.xsd"/></xsd:schema>)
      with_files("s.wsdl" => wsdl(types: types), "x.xsd" => X_SCHEMA, "y.xsd" => again) do |dir|
        description = WSDL.load(File.join(dir, "s.wsdl"))
        assert_equal ["X"], description.types.map(&:name)
        assert_equal 1, description.warnings.size, description.warnings.inspect
        assert_match(%r{y\.xsd(:\d+)?: <import>: http://127\.0\.0\.1:9/x\.xsd not fetched \(fetch: false\); urn:x is read from .*/x\.xsd\z}, description.warnings.first)
        # A namespace not read from a file yet is still refused.
        File.write(File.join(dir, "s.wsdl"), wsdl(types: %(<xsd:schema targetNamespace="urn:test"><xsd:import namespace="urn:y" schemaLocation="y.xsd"/></xsd:schema>)))
        assert_match(/imports by URL are read only with fetch: true/, assert_raises(WSDL::InvalidError) { WSDL.load(File.join(dir, "s.wsdl")) }.message)
      end
    end

    # A server on 127.0.0.1 answering each path with a canned response.
    def serve(routes)
      server = TCPServer.new("127.0.0.1", 0)
      thread = Thread.new do
        loop do
          client = server.accept
          request = client.gets.to_s
          nil until client.gets.to_s.strip.empty?
          route = routes.fetch(request.split[1].to_s) { ->(io) { io.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n") } }
          route.call(client)
        rescue IOError, SystemCallError
          nil
        ensure
          client&.close
        end
      end
      yield "http://127.0.0.1:#{server.addr[1]}"
    ensure
      thread&.kill&.join
      server&.close
    end

    def ok(body)
      ->(io) { io.write("HTTP/1.1 200 OK\r\nContent-Length: #{body.bytesize}\r\nConnection: close\r\n\r\n#{body}") }
    end

    def test_a_wsdl_by_url_is_fetched_with_its_imports
      serve("/svc/s.wsdl" => ok(importing("x.xsd")), "/svc/x.xsd" => ok(X_SCHEMA)) do |url|
        assert_equal ["X"], WSDL.load("#{url}/svc/s.wsdl", fetch: true).types.map(&:name)
        Dir.mktmpdir do |out|
          err = StringIO.new
          status = CLI.run(["generate", "#{url}/svc/s.wsdl", "--fetch", "--out", out, "--module", "Svc"], out: StringIO.new, err: err)
          assert_equal 0, status, err.string
          assert File.file?(File.join(out, "svc/models.rb"))
          status = CLI.run(["generate", "#{url}/svc/s.wsdl", "--out", out, "--module", "Svc"], out: StringIO.new, err: err)
          assert_equal 1, status
          assert_match(/fetch/, err.string)
        end
      end
    end

    def test_redirects_oversized_and_trickling_bodies_are_refused
      redirect = ->(io) { io.write("HTTP/1.1 302 Found\r\nLocation: http://example.invalid/x.xsd\r\nContent-Length: 0\r\n\r\n") }
      big = ->(io) { io.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n<x>#{'a' * 4096}") }
      trickle = lambda do |io|
        io.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n<x>")
        20.times do
          io.write("a")
          sleep 0.2
        end
      end
      serve("/r.wsdl" => redirect, "/big.wsdl" => big, "/slow.wsdl" => trickle) do |url|
        assert_match(/answered 302/, assert_raises(WSDL::InvalidError) { WSDL.load("#{url}/r.wsdl", fetch: true) }.message)
        loader = WSDL::Loader.new(fetch: true, limits: {}, max_fetch_bytes: 1024, fetch_deadline: 1)
        assert_match(/larger than 1024 bytes/, assert_raises(WSDL::InvalidError) { loader.run("#{url}/big.wsdl", nil) }.message)
        loader = WSDL::Loader.new(fetch: true, limits: {}, max_fetch_bytes: 1024, fetch_deadline: 1)
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        assert_match(/took longer than 1 s/, assert_raises(WSDL::InvalidError) { loader.run("#{url}/slow.wsdl", nil) }.message)
        assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 3
      end
    end
  end
end
