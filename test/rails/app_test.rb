# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "json"
require "net/http"
require "socket"
require "tmpdir"
require "bundler"

# A real Rails application: `rails new --api --minimal` (Rails 7.2, SQLite),
# its Gemfile pointing at this checkout, a model, a serializer and a controller
# that uses `render wirebind:`, 100,000 rows, served by Puma on 127.0.0.1 and
# asked over HTTP. The application is generated once per Rails version into
# tmp/ (generation and seeding take most of the time) and reused.
class RailsAppTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)
  GEMFILE = File.join(ROOT, "gemfiles/rails/Gemfile")
  ROWS = 100_000
  # RSS growth of the Puma process allowed while it serves the 100,000 rows a
  # second time (about 26 MB of JSON). Measured on 2026-11-27: about 20 MB
  # streamed from the Relation, about 120 MB for the same serializer over
  # Article.all.to_a; the first request grows the heap (Ruby's and malloc's)
  # by about 85 MB in both cases, so it is the warm-up.
  RSS_GROWTH_LIMIT = 50 * 1024 * 1024

  # The row the seed writes for id +i+, as the API must serve it: written from
  # the seed's formula, not from anything the application renders.
  def self.expected_row(id)
    { "id" => id, "title" => "Article #{id}", "views" => (id * 7) % 1000, "body" => "#{'x' * 200}#{id}" }
  end

  def setup
    @tmpdir = Dir.mktmpdir("wirebind-rails")
    @rails_version = rails_version
    @app = File.join(ROOT, "tmp", "rails-app-#{@rails_version}")
    generate_app unless File.exist?(File.join(@app, ".seeded"))
    write_gemfile
    @pid = nil
  end

  def teardown
    stop_server
    FileUtils.rm_rf(@tmpdir)
  end

  def test_streams_a_relation_of_100_000_rows_with_flat_memory
    start_server
    warm = get("/articles?limit=10")
    assert_equal "200", warm.code
    assert_equal (1..10).map { |id| self.class.expected_row(id) }, JSON.parse(warm.body)

    first = get("/articles")
    assert_equal "200", first.code
    assert_equal "application/json", first["content-type"].split(";").first
    rows = JSON.parse(first.body)
    assert_equal ROWS, rows.size
    assert_equal (1..ROWS).map { |id| self.class.expected_row(id) }, rows
    # The document, beyond 1 MiB, was kept in a Tempfile for Rails' ETag digest; the
    # body is closed when the response is finished, so none is left behind.
    assert_equal [], Dir.children(@tmpdir)

    before = rss
    peak = before
    second = nil
    sampler = Thread.new do
      until second
        peak = [peak, rss].max
        sleep 0.02
      end
    end
    second = get("/articles")
    sampler.join
    assert_equal first.body, second.body
    growth = peak - before
    puts "\nrails app: Puma RSS #{before / 1024} KiB before the second request, #{peak / 1024} KiB at its peak " \
         "(#{ROWS} rows, #{second.body.bytesize} bytes)"
    assert_operator growth, :<, RSS_GROWTH_LIMIT, "RSS grew by #{growth / 1024} KiB while streaming"
  end

  def test_json_api_relation_etag_and_errors
    start_server
    response = get("/articles/json_api?limit=3")
    assert_equal "200", response.code
    assert_equal "application/vnd.api+json", response["content-type"].split(";").first
    document = JSON.parse(response.body)
    expected = (1..3).map do |id|
      row = self.class.expected_row(id)
      { "id" => id.to_s, "type" => "articles", "attributes" => row.except("id") }
    end
    assert_equal(expected, document.fetch("data").map { |resource| resource.slice("id", "type", "attributes") })

    # Rails' Rack::ETag digested the body, then Puma wrote it again: one ETag, a 304 for it.
    etag = response["etag"]
    refute_nil etag
    again = get("/articles/json_api?limit=3", "if-none-match" => etag)
    assert_equal "304", again.code

    # An Enumerator of Hashes (find_in_batches flattened) is a collection too.
    batches = get("/articles/batches?limit=2500")
    assert_equal "200", batches.code
    assert_equal (1..2500).map { |id| self.class.expected_row(id) }, JSON.parse(batches.body)

    # An option the body does not take is Rails' 500, not a silently wrong document.
    assert_equal "500", get("/articles/bad_option").code
  end

  private

  def bundle_env(gemfile = GEMFILE)
    { "BUNDLE_GEMFILE" => gemfile, "TMPDIR" => @tmpdir, "RAILS_ENV" => "production", "SECRET_KEY_BASE" => "0" * 64,
      "RAILS_LOG_LEVEL" => "warn", "WIREBIND_BACKEND" => ENV.fetch("WIREBIND_BACKEND", nil) }
  end

  def run!(env, *command, chdir:)
    output = nil
    Bundler.with_unbundled_env do
      output = IO.popen(env, command, chdir: chdir, err: %i[child out], &:read)
    end
    flunk "#{command.join(' ')} failed in #{chdir}:\n#{output}" unless $?.success?
    output
  end

  def rails_version
    ok = Bundler.with_unbundled_env { system(bundle_env, "bundle", "check", out: File::NULL, err: File::NULL) }
    unless ok
      message = "Rails 7.2 (gemfiles/rails/Gemfile) is not installed: BUNDLE_GEMFILE=gemfiles/rails/Gemfile bundle install"
      flunk message if ENV["CI"]
      skip message
    end
    run!(bundle_env, "bundle", "exec", "ruby", "-e", "require 'rails/version'; print Rails::VERSION::STRING", chdir: ROOT)
  end

  def generate_app
    FileUtils.rm_rf(@app)
    FileUtils.mkdir_p(File.dirname(@app))
    run!(bundle_env, "bundle", "exec", "rails", "new", @app, "--api", "--minimal", "--database=sqlite3",
         "--skip-bundle", "--skip-git", "--skip-test", "--skip-docker", "--skip-ci", "--skip-rubocop",
         "--skip-brakeman", "--quiet", chdir: File.dirname(@app))
    File.write(File.join(@app, "config/environments/production.rb"),
               File.read(File.join(@app, "config/environments/production.rb"))
                   .sub(/^\s*config\.force_ssl = true/, "  config.force_ssl = false")
                   .sub(/^\s*config\.assume_ssl = true/, ""))
    files = {
      "app/models/article.rb" => <<~RUBY,
        class Article < ApplicationRecord
        end
      RUBY
      "app/serializers/article_serializer.rb" => <<~RUBY,
        class ArticleSerializer < Wirebind::Serializer
          type "articles"
          attributes :id, :title, :views, :body
        end
      RUBY
      "app/controllers/articles_controller.rb" => <<~RUBY,
        class ArticlesController < ApplicationController
          def index
            render wirebind: ArticleSerializer.new(scope, format: :plain)
          end

          def json_api
            render wirebind: scope, format: :json_api, serializer: ArticleSerializer
          end

          def batches
            rows = scope.find_in_batches(batch_size: 1000).lazy.flat_map(&:itself)
            render wirebind: ArticleSerializer.new(rows.each, format: :plain)
          end

          def bad_option
            render wirebind: scope, format: :json_api, serializer: ArticleSerializer, no_such_option: 1
          end

          private

          def scope
            params[:limit] ? Article.limit(Integer(params[:limit])) : Article.all
          end
        end
      RUBY
      "config/routes.rb" => <<~RUBY,
        Rails.application.routes.draw do
          get "articles", to: "articles#index"
          get "articles/json_api", to: "articles#json_api"
          get "articles/batches", to: "articles#batches"
          get "articles/bad_option", to: "articles#bad_option"
        end
      RUBY
      "config/database.yml" => <<~YAML,
        production:
          adapter: sqlite3
          database: storage/production.sqlite3
          pool: 5
          timeout: 5000
      YAML
      "db/schema.rb" => <<~RUBY,
        ActiveRecord::Schema[7.2].define(version: 1) do
          create_table :articles do |t|
            t.string :title, null: false
            t.integer :views, null: false
            t.text :body, null: false
          end
        end
      RUBY
      "db/seeds.rb" => <<~RUBY
        1.step(#{ROWS}, 10_000) do |first|
          rows = (first...[first + 10_000, #{ROWS + 1}].min).map do |id|
            { id: id, title: "Article \#{id}", views: (id * 7) % 1000, body: "\#{'x' * 200}\#{id}" }
          end
          Article.insert_all!(rows)
        end
      RUBY
    }
    files.each do |path, text|
      FileUtils.mkdir_p(File.dirname(File.join(@app, path)))
      File.write(File.join(@app, path), text)
    end
    write_gemfile
    run!(app_env, "bin/rails", "db:schema:load", "db:seed", chdir: @app)
    File.write(File.join(@app, ".seeded"), "")
  end

  def app_env
    bundle_env(File.join(@app, "Gemfile")).merge("DISABLE_DATABASE_ENVIRONMENT_CHECK" => "1")
  end

  # The application's Gemfile: the versions of gemfiles/rails, wirebind from this checkout.
  def write_gemfile
    gemfile = <<~RUBY
      source "https://rubygems.org"
      gem "rails", "#{@rails_version}"
      gem "sqlite3", ">= 2.1", "< 3"
      gem "puma", ">= 6.4", "< 9"
      gem "wirebind", path: #{ROOT.inspect}
    RUBY
    path = File.join(@app, "Gemfile")
    return if File.exist?(path) && File.read(path) == gemfile && File.exist?("#{path}.lock")

    File.write(path, gemfile)
    FileUtils.rm_f("#{path}.lock")
    run!(app_env, "bundle", "lock", "--local", chdir: @app)
  end

  def start_server
    @port = TCPServer.open("127.0.0.1", 0) { |server| server.addr[1] }
    @log = File.join(@app, "log", "puma-#{Process.pid}.log")
    Bundler.with_unbundled_env do
      @pid = Process.spawn(app_env, "bundle", "exec", "puma", "-b", "tcp://127.0.0.1:#{@port}", "-t", "2:2",
                           "-e", "production", "config.ru", chdir: @app, out: @log, err: %i[child out], pgroup: true)
    end
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 60
    begin
      TCPSocket.open("127.0.0.1", @port).close
    rescue Errno::ECONNREFUSED
      late = Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      flunk "Puma did not start:\n#{File.read(@log)}" if late || Process.waitpid(@pid, Process::WNOHANG)
      sleep 0.1
      retry
    end
  end

  def stop_server
    return unless @pid

    begin
      Process.kill("TERM", -@pid)
      30.times do
        break if Process.waitpid(@pid, Process::WNOHANG)

        sleep 0.1
      end
      Process.kill("KILL", -@pid) if Process.waitpid(@pid, Process::WNOHANG).nil?
      Process.waitpid(@pid)
    rescue Errno::ESRCH, Errno::ECHILD
      nil
    end
    @pid = nil
    FileUtils.rm_f(@log)
  end

  def rss
    File.read("/proc/#{@pid}/status")[/^VmRSS:\s+(\d+)/, 1].to_i * 1024
  end

  def get(path, headers = {})
    Net::HTTP.start("127.0.0.1", @port, read_timeout: 120) { |http| http.get(path, headers) }
  end
end
