# frozen_string_literal: true

require "test_helper"
require "timeout"
require_relative "../support/linear_time"

# defusedxml's attack files (../shared/fixtures/xml_attacks), a real billion laughs and
# a deep document: each ends in a Wirebind::Error, fast, whatever the DTD policy.
class AttacksTest < Minitest::Test
  include Wirebind::LinearTime # for cpu_time
  ATTACKS = %w[cyclic.xml dtd.xml external.xml external_file.xml quadratic.xml xmlbomb.xml xmlbomb2.xml].freeze
  CONTROLS = %w[simple.xml simple-ns.xml].freeze

  def attack(name)
    File.binread(shared_path("fixtures", "xml_attacks", name))
  end

  # Fast means little work: the CPU time of this process (of this thread on JRuby,
  # see LinearTime#cpu_time), which other processes on a loaded machine do not
  # inflate as they do wall-clock time (an expansion that ran away would take
  # minutes of it). The timeout only turns a hang into a failure.
  def assert_refused(xml, klass = Wirebind::Error, **options)
    error = Timeout.timeout(60) do
      error = nil
      spent = cpu_time { error = assert_raises(klass) { Wirebind::XML.check(xml, **options) } }
      assert_operator spent, :<, 1.0, "refusing took #{spent.round(2)} s of CPU time"
      error
    end
    assert_kind_of Wirebind::Error, error
    error
  end

  ATTACKS.each do |name|
    define_method("test_#{name.tr('.-', '__')}_is_refused_by_default") do
      error = assert_refused(attack(name))
      assert_match(/DOCTYPE/, error.message)
    end
  end

  def test_cyclic_entities_are_refused_when_dtds_are_read
    error = assert_refused(attack("cyclic.xml"), Wirebind::ParseError, dtd: :internal)
    assert_match(/references itself/, error.message)
  end

  def test_quadratic_blowup_is_a_limit_error_when_dtds_are_read
    error = assert_refused(attack("quadratic.xml"), Wirebind::LimitError, dtd: :internal)
    assert_match(/max_entity_bytes/, error.message)
  end

  def test_external_entities_are_never_fetched
    %w[external.xml external_file.xml].each do |name|
      error = assert_refused(attack(name), Wirebind::ParseError, dtd: :internal)
      assert_match(/never fetched/, error.message)
    end
  end

  def test_billion_laughs_is_a_limit_error_when_dtds_are_read
    levels = (1..9).map { |i| %(<!ENTITY lol#{i} "#{"&lol#{i - 1};" * 10}">) }
    xml = %(<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol0 "lol">#{levels.join}]><lolz>&lol9;</lolz>)
    error = assert_refused(xml, Wirebind::LimitError, dtd: :internal)
    assert_match(/max_entity/, error.message)
  end

  def test_billion_laughs_in_an_attribute_value_is_a_limit_error
    levels = (1..9).map { |i| %(<!ENTITY lol#{i} "#{"&lol#{i - 1};" * 10}">) }
    xml = %(<!DOCTYPE lolz [<!ENTITY lol0 "lol">#{levels.join}]><lolz a="&lol9;"/>)
    assert_refused(xml, Wirebind::LimitError, dtd: :internal)
  end

  def test_the_small_entity_files_expand_correctly_when_dtds_are_read
    record = Class.new do
      include Wirebind::Model
      attribute :bomb, :string
    end
    assert_equal "1234567890", Wirebind::XML.decode(attack("xmlbomb2.xml"), record, dtd: :internal).bomb
    assert Wirebind::XML.check(attack("xmlbomb.xml"), dtd: :internal)
  end

  def test_controls_are_accepted
    CONTROLS.each { |name| assert Wirebind::XML.check(attack(name)), name }
  end

  def test_a_200k_deep_document_is_a_limit_error_without_using_the_stack
    depth = 200_000
    xml = ("<a>" * depth) + ("</a>" * depth)
    error = assert_refused(xml, Wirebind::LimitError)
    assert_match(/max_depth \(1024\)/, error.message)
    assert_equal 1, error.line
  end

  def test_a_200k_deep_document_within_a_raised_limit_still_parses
    depth = 200_000
    xml = ("<a>" * depth) + ("</a>" * depth)
    assert Wirebind::XML.check(xml, max_depth: depth)
  end
end
