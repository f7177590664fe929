# frozen_string_literal: true

require "test_helper"
require "bigdecimal"
require "date"
require_relative "../support/round_trip"

# One model tree reads the XML and the JSON of the same data (issue 13, item
# 11), shaped as Shale's benchmark report is: repeated singular elements in
# XML ("hobby", "school", "contact") are plural arrays in JSON ("hobbies",
# "education", "contacts"), and coordinates and balances are XML text but JSON
# strings. Per-format options on the attributes (xml:, json:,
# lenient_numbers:) are all it takes: no second copy of the tree.
class TwoFormatsTest < Minitest::Test
  include Wirebind::RoundTrip

  class Address
    include Wirebind::Model
    attribute :city, :string
    attribute :zip, :string
    attribute :state_abbr, :string, xml: "state_abbr"
    attribute :latitude, :decimal, lenient_numbers: true # JSON "-58.17", XML <latitude>-58.17</latitude>
    attribute :longitude, :decimal, lenient_numbers: true
  end

  class Contact
    include Wirebind::Model
    attribute :type, :string
    attribute :contact, :string
  end

  class Company
    include Wirebind::Model
    attribute :name, :string
    attribute :address, Address
    attribute :contacts, [Contact], xml: "contact" # <contact/><contact/> / "contacts": [...]
  end

  class BankAccount
    include Wirebind::Model
    json_numbers :lenient # every number of the model may be a JSON string
    attribute :number, :string
    attribute :balance, :decimal
    attribute :bank, Company
  end

  class Person
    include Wirebind::Model
    xml_root "person"
    attribute :first_name, :string, xml: "first_name"
    attribute :date_of_birth, :date, xml: "date_of_birth"
    attribute :hobbies, [:string], xml: "hobby"
    attribute :education, [Company], xml: "school"
    attribute :bank_account, BankAccount, xml: "bank_account"
    attribute :children, [Person], xml: "child"
  end

  class Report
    include Wirebind::Model
    xml_root "people"
    attribute :people, [Person], xml: "person"
  end

  XML = <<~XML
    <people>
      <person>
        <first_name>Anna</first_name>
        <date_of_birth>1984-02-29</date_of_birth>
        <hobby>Chess</hobby>
        <hobby>Rowing</hobby>
        <school>
          <name>North School</name>
          <address><city>Oslo</city><zip>0150</zip><state_abbr>OS</state_abbr><latitude>59.91</latitude><longitude>10.75</longitude></address>
          <contact><type>phone</type><contact>555-0100</contact></contact>
          <contact><type>email</type><contact>office@north.example</contact></contact>
        </school>
        <bank_account>
          <number>12-34</number>
          <balance>1024.50</balance>
          <bank><name>Fjord Bank</name><address><city>Bergen</city><latitude>-60.39</latitude></address></bank>
        </bank_account>
        <child><first_name>Ola</first_name><hobby>Drawing</hobby></child>
      </person>
    </people>
  XML

  JSON_TEXT = <<~JSON
    {"people": [{
      "first_name": "Anna", "date_of_birth": "1984-02-29", "hobbies": ["Chess", "Rowing"],
      "education": [{"name": "North School",
                     "address": {"city": "Oslo", "zip": "0150", "state_abbr": "OS", "latitude": "59.91", "longitude": "10.75"},
                     "contacts": [{"type": "phone", "contact": "555-0100"}, {"type": "email", "contact": "office@north.example"}]}],
      "bank_account": {"number": "12-34", "balance": "1024.50",
                       "bank": {"name": "Fjord Bank", "address": {"city": "Bergen", "latitude": -60.39}, "contacts": []}},
      "children": [{"first_name": "Ola", "hobbies": ["Drawing"]}]
    }]}
  JSON

  def expected
    school = Company.new(name: "North School",
                         address: Address.new(city: "Oslo", zip: "0150", state_abbr: "OS", latitude: BigDecimal("59.91"),
                                              longitude: BigDecimal("10.75")),
                         contacts: [Contact.new(type: "phone", contact: "555-0100"), Contact.new(type: "email", contact: "office@north.example")])
    bank = Company.new(name: "Fjord Bank", address: Address.new(city: "Bergen", latitude: BigDecimal("-60.39")))
    Report.new(people: [Person.new(first_name: "Anna", date_of_birth: Date.new(1984, 2, 29), hobbies: %w[Chess Rowing], education: [school],
                                   bank_account: BankAccount.new(number: "12-34", balance: BigDecimal("1024.50"), bank: bank),
                                   children: [Person.new(first_name: "Ola", hobbies: ["Drawing"])])])
  end

  def test_one_model_tree_reads_both_formats_of_the_same_data
    from_xml = Report.from_xml(XML)
    from_json = Report.from_json(JSON_TEXT)
    assert_equal expected, from_xml
    assert_equal expected, from_json
  end

  def test_each_format_round_trips_through_the_same_models
    report = expected
    assert_round_trip(report, XML_FORMAT)
    assert_round_trip(report, JSON_FORMAT)
    assert_equal report, Report.from_xml(report.to_xml)
    assert_equal report, Report.from_json(report.to_json)
    assert_includes report.to_xml, "<hobby>Chess</hobby><hobby>Rowing</hobby>"
    assert_includes report.to_json, '"hobbies":["Chess","Rowing"]'
  end
end
