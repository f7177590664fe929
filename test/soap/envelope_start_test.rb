# frozen_string_literal: true

require_relative "soap_test_support"

# The start of a body is read one way (Prelude.read): a plain start at once,
# anything else by the tokenizer. Both must say the same of every start, so
# each start here is read both ways and compared.
class SOAPEnvelopeStartTest < Minitest::Test
  Prelude = Wirebind::SOAP::Envelope::Reader.const_get(:Prelude) # private: the test reads it both ways
  NS11 = Wirebind::Namespaces::SOAP11_ENVELOPE
  NS12 = Wirebind::Namespaces::SOAP12_ENVELOPE
  APP = "urn:app"

  PLAIN = [
    %(<s:Envelope xmlns:s="#{NS11}"><s:Body><m:getIt xmlns:m="#{APP}"><a>1</a></m:getIt></s:Body></s:Envelope>),
    %(<?xml version="1.0" encoding="UTF-8"?>\n<soapenv:Envelope xmlns:soapenv='#{NS11}' xmlns:m='#{APP}'>\n  <soapenv:Body>\n    <m:r/></soapenv:Body></soapenv:Envelope>),
    %(<Envelope xmlns="#{NS11}"><Body><m:r xmlns:m="#{APP}">x</m:r></Body></Envelope>),
    %(<s:Envelope xmlns:s="#{NS11}"><s:Body><r>x</r></s:Body></s:Envelope>)
  ].freeze

  # Each a reason the plain way declines: a header, a fault, SOAP 1.2, a
  # comment, an entity reference in an attribute, an empty Body, non-ASCII,
  # the default namespace declared again.
  OTHER = [
    %(<Envelope xmlns="#{NS11}"><Body><r xmlns="#{APP}">x</r></Body></Envelope>),
    %(<s:Envelope xmlns:s="#{NS11}"><s:Header><h:t xmlns:h="urn:h">1</h:t></s:Header><s:Body><m:r xmlns:m="#{APP}"/></s:Body></s:Envelope>),
    %(<s:Envelope xmlns:s="#{NS11}"><s:Body><s:Fault><faultcode>s:Server</faultcode><faultstring>no</faultstring></s:Fault></s:Body></s:Envelope>),
    %(<e:Envelope xmlns:e="#{NS12}"><e:Body><m:r xmlns:m="#{APP}"><rpc:result xmlns:rpc="http://www.w3.org/2003/05/soap-rpc">m:v</rpc:result><m:v>1</m:v></m:r></e:Body></e:Envelope>),
    %(<!-- hi --><s:Envelope xmlns:s="#{NS11}"><s:Body><m:r xmlns:m="#{APP}"/></s:Body></s:Envelope>),
    %(<s:Envelope xmlns:s="#{NS11}"><s:Body><m:r xmlns:m="urn:a&amp;b"/></s:Body></s:Envelope>),
    %(<s:Envelope xmlns:s="#{NS11}"><s:Body></s:Body></s:Envelope>),
    %(<s:Envelope xmlns:s="#{NS11}"><s:Body><m:été xmlns:m="#{APP}"/></s:Body></s:Envelope>)
  ].freeze

  def by_tokenizer(xml)
    prelude = Prelude.new(xml, **Wirebind::XML::DEFAULT_LIMITS, dtd: :reject)
    prelude.read
    prelude
  end

  def answers(start)
    fault = start.fault
    [start.version, start.operation, start.result, start.must_understand, start.headers, fault && [fault.code, fault.reason]]
  end

  def test_a_plain_start_is_read_at_once_and_says_what_the_tokenizer_says
    PLAIN.each do |xml|
      2.times do # the second time from the kept last start
        start = Prelude.read(xml, xml, {})

        assert_instance_of Prelude::Plain, start, xml
        assert_equal answers(by_tokenizer(xml)), answers(start), xml
      end
    end
  end

  # The kept start is taken when a body begins with it (no match run): another
  # body, a first chunk cut just after it, non-ASCII text after it, a binary
  # String; a body that only shares part of it is matched afresh.
  def test_a_body_beginning_with_the_kept_start_reads_alike
    first = PLAIN[0]
    Prelude.read(first, first, {})
    same_start = first.sub("<a>1</a>", "<a>été</a>")
    [same_start, first[0, first.index("<a>")], same_start.b, first.sub("</m:getIt>", "<b>2</b></m:getIt>")].each do |xml|
      start = Prelude.read(xml, xml, {})

      assert_instance_of Prelude::Plain, start, xml
      assert_equal answers(by_tokenizer(first)), answers(start), xml
    end
    other = first.sub("getIt", "getAll")
    assert_equal ["getAll", APP], Prelude.read(other, other, {}).operation
    cut = first[0, first.index("<a>") - 2]
    assert_nil Prelude.send(:plain_start, cut), "a start cut short is not plain"
  end

  def test_any_other_start_falls_back_to_the_tokenizer
    OTHER.each do |xml|
      2.times do
        start = Prelude.read(xml, xml, {})

        assert_instance_of Prelude, start, xml
        assert_equal answers(by_tokenizer(xml)), answers(start), xml
      end
    end
  end
end
