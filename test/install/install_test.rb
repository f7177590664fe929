# frozen_string_literal: true

require "test_helper"
require "open3"
require "rbconfig"

# What a fresh install relies on: the gemspec, autoloads, the backend's notice.
class InstallTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)
  LIB = File.join(ROOT, "lib")

  def ruby(code, env = {})
    Open3.capture3(env, RbConfig.ruby, "-I", LIB, "-e", code)
  end

  def test_http2_is_autoloaded_like_soap
    out, err, status = ruby('require "wirebind"; p [Wirebind::HTTP2::Frame.name, Wirebind::HTTP2::HPACK::Encoder.name, ' \
                           "Wirebind.autoload?(:SOAP).nil?]")

    assert status.success?, err
    assert_equal %(["Wirebind::HTTP2::Frame", "Wirebind::HTTP2::HPACK::Encoder", false]\n), out
  end

  def test_no_library_file_requires_base64
    offenders = Dir[File.join(LIB, "**/*.rb")].select { |file| File.read(file).match?(/^\s*require\s+["']base64["']/) }

    assert_empty offenders, "base64 is not a default gem from Ruby 3.4 on"
  end

  def test_the_gem_ships_its_signatures_and_bounds_its_dependencies
    spec = Gem::Specification.load(File.join(ROOT, "wirebind.gemspec"))

    assert_includes spec.files, "sig/wirebind.rbs"
    spec.runtime_dependencies.each do |dependency|
      assert dependency.requirement.requirements.any? { |op, _| op.start_with?("<", "~>") }, "#{dependency.name} has an upper bound"
    end
    assert_match(/SOAP/, spec.summary)
    assert_match(%r{HTTP/2}, spec.summary)
    assert_match(/binary/, spec.summary)
  end

  def test_a_missing_native_extension_warns_once_unless_pure_is_chosen
    # An empty load path entry first hides nothing; a stub that fails to load stands for the missing extension.
    Dir.mktmpdir do |dir|
      FileUtils.mkdir_p(File.join(dir, "wirebind"))
      File.write(File.join(dir, "wirebind", "wirebind_ext.rb"), 'raise LoadError, "no compiled extension"')
      code = 'require "wirebind"; require "wirebind"; print Wirebind.backend'
      out, err, status = Open3.capture3({ "WIREBIND_BACKEND" => "auto" }, RbConfig.ruby, "-I", dir, "-I", LIB, "-e", code)
      assert status.success?, err
      assert_equal "pure", out
      assert_equal 1, err.scan("native extension is not compiled").size, err

      out, err, = Open3.capture3({ "WIREBIND_BACKEND" => "pure" }, RbConfig.ruby, "-I", dir, "-I", LIB, "-e", code)
      assert_equal "pure", out
      assert_equal "", err
    end
  end
end
