# frozen_string_literal: true

require_relative "interop_support"

# PHP's SoapServer (Debian's php-soap, under php -S) called by wirebind's client:
# rpc/encoded in SOAP 1.1 and 1.2, rpc/literal and document/literal from PHP's
# WSDLs, values checked field by field.
class PhpServerInteropTest < Minitest::Test
  include PeerServer

  class Person
    include Wirebind::Model
    attribute :name, :string
    attribute :age, :integer
  end

  PHP = "php"
  SCRIPTS = File.join(__dir__, "php")

  def self.php?
    return @php if defined?(@php)

    @php = system(PHP, "-r", 'exit(class_exists("SoapServer") ? 0 : 1);', out: File::NULL, err: File::NULL) || false
  end

  def self.url
    @url ||= begin
      port = PeerServer.free_port
      PeerServer.start([PHP, "-S", "127.0.0.1:#{port}", "router.php"], port, chdir: SCRIPTS)
      "http://127.0.0.1:#{port}"
    end
  end

  def client(version)
    require_peer(self.class.php?, "php-cli with php-soap")
    Wirebind::SOAP::Client.new(endpoint: "#{self.class.url}/soap#{version.delete('.')}", namespace: "urn:wirebind:php",
                               version: version, style: :rpc_encoded, read_timeout: 10)
  end

  def check_values(client)
    assert_equal 5, client.call(:add, { a: 2, b: 3 }, returns: :integer)
    assert_equal "Hello ann é", client.call(:hello, { name: "ann é" }, returns: :string)
    person = client.call(:person, { name: "bob" }, returns: Person)
    assert_equal "bob", person.name
    assert_equal 42, person.age
  end

  def test_rpc_encoded_soap11
    check_values(client("1.1"))
  end

  # PHP answers SOAP 1.2 rpc with rpc:result naming the return element, and
  # refuses SOAP 1.1's encodingStyle in a 1.2 request (DataEncodingUnknown).
  def test_rpc_encoded_soap12
    check_values(client("1.2"))
  end

  # Lists both ways in SOAP 1.1 and 1.2 encoding: PHP reads either array form
  # whatever the version, so its listTag reports the form the client wrote
  # (1.2: enc:itemType and enc:arraySize, Part 2 section 3.1.6; not soapenc:arrayType).
  def test_rpc_encoded_arrays
    { "1.1" => / xsi:type="soapenc:Array" soapenc:arrayType="xsd:long\[2\]"/,
      "1.2" => / xsi:type="enc:Array" enc:itemType="xsd:long" enc:arraySize="2"/ }.each do |version, form|
      client = client(version)
      assert_equal 46, client.call(:total, { list: [1, 2, 3, 40] }, types: { list: [:integer] }, returns: :integer), version
      assert_equal %w[ann zoë ✓], client.call(:words, { text: "ann zoë ✓" }, returns: [:string]), version
      tag = client.call(:listTag, { list: [1, 2] }, types: { list: [:integer] }, returns: :string)
      assert_match form, tag, version
      refute_match(/soapenc/, tag, version) if version == "1.2"
    end
  end

  # PHP writes one object that a response holds twice with id on the first copy
  # and href="#ref1" on the second, inside the response, in document/literal
  # too: the client resolves it (the same record twice), not a record of nils.
  def test_document_literal_repeated_value_is_resolved
    require_peer(self.class.php?, "php-cli with php-soap")
    generated = PeerServer.generated(File.join(SCRIPTS, "pair.wsdl"))
    client = generated::Client.new(endpoint: "#{self.class.url}/pair")
    response = client.pair(name: "bob")
    assert_equal([["bob", 42], ["bob", 42]], [response.first, response.second].map { |p| [p.name, p.age] })
  ensure
    client&.close
  end

  # The same in rpc/encoded: an object returned twice in a list.
  def test_rpc_encoded_repeated_value_is_resolved
    people = client("1.1").call(:twice, { name: "bob" }, returns: [Person])
    assert_equal([["bob", 42], ["bob", 42]], people.map { |p| [p.name, p.age] })
  end

  # rpc/literal from PHP's WSDL: a record with non-ASCII text, and a nil
  # (PHP writes xsi:nil for the nillable element).
  def test_rpc_literal
    require_peer(self.class.php?, "php-cli with php-soap")
    generated = PeerServer.generated(File.join(SCRIPTS, "rpc_literal.wsdl"))
    client = generated::Client.new(endpoint: "#{self.class.url}/rpc-literal", read_timeout: 10)
    adult = client.person(name: "zoë", age: 40)
    assert_equal ["zoë ✓", 40, "Mx zoë"], [adult.name, adult.age, adult.nickname]
    child = client.person(name: "ann", age: 9)
    assert_equal ["ann ✓", 9, nil], [child.name, child.age, child.nickname]
  ensure
    client&.close
  end

  # A client generated from PHP's WSDL sends the header under its element's
  # name (AuthHeader, WSDL 1.1 §3.7, WS-I BP R2205), not its type's
  # (AuthHeaderType): PHP hands the header to its AuthHeader method.
  def test_generated_client_sends_the_header_under_its_element_name
    require_peer(self.class.php?, "php-cli with php-soap")
    generated = PeerServer.generated(File.join(SCRIPTS, "header.wsdl"))
    client = generated::Client.new(endpoint: "#{self.class.url}/doc")
    auth = generated::AuthHeaderType.new(user: "ann", password: "secret")
    assert_equal "hello, ann", client.who_am_i(greeting: "hello", auth: auth)
    assert_equal "hello, stranger", client.who_am_i(greeting: "hello")
  ensure
    client&.close
  end
end

# PHP's SoapClient in WSDL mode (php/client.php) calling the service:
# document/literal, rpc/encoded and rpc/literal, values checked on both sides.
class PhpClientInteropTest < Minitest::Test
  include ForeignClientTest
  include PeerServer

  def test_php_soap_client_calls_document_and_rpc_encoded
    require_peer(PhpServerInteropTest.php?, "php-cli with php-soap")
    check_foreign_client([PhpServerInteropTest::PHP, File.join(PhpServerInteropTest::SCRIPTS, "client.php")], paths: %w[/document /encoded /rpc])
  end

  # The same over SOAP 1.2 (client.php sets soap_version for a path ending in 12:
  # PHP does not take the version from the WSDL's soap12 binding).
  def test_php_soap_client_calls_over_soap12
    require_peer(PhpServerInteropTest.php?, "php-cli with php-soap")
    check_foreign_client([PhpServerInteropTest::PHP, File.join(PhpServerInteropTest::SCRIPTS, "client.php")], paths: %w[/document12 /encoded12 /rpc12])
  end

  # PHP's SoapClient without a WSDL, in SOAP 1.1 and 1.2 encoding, calling an
  # rpc/encoded service: a list in, a list out, in the array form of the version.
  def test_php_soap_client_sends_and_reads_encoded_arrays
    require_peer(PhpServerInteropTest.php?, "php-cli with php-soap")
    forms = { "1.1" => /\A<wordsReturn xsi:type="soapenc:Array" soapenc:arrayType="xsd:string\[3\]">\z/,
              "1.2" => /\A<wordsReturn xsi:type="enc:Array" enc:itemType="xsd:string" enc:arraySize="3">\z/ }
    Interop::Server.open(Rack::URLMap.new("/1.1" => Lists11.new, "/1.2" => Lists12.new)) do |server|
      forms.each do |version, form|
        result = JSON.parse(run_client([PhpServerInteropTest::PHP, File.join(PhpServerInteropTest::SCRIPTS, "encoded_client.php"),
                                        "#{server.url}/#{version}", version]))
        assert_equal 46, result["total"], version
        assert_equal %w[ann zoë ✓], result["words"], version
        assert_match form, result["wordsTag"], version
      end
    end
  end

  # The lists PHP's SoapClient calls in test_php_soap_client_sends_and_reads_encoded_arrays.
  class Lists11 < Wirebind::SOAP::Service
    style :rpc_encoded
    namespace "urn:wirebind:php"
    operation(:total, args: { list: [:integer] }, returns: :integer) { |list| list.sum(0) }
    operation(:words, args: { text: :string }, returns: [:string]) { |text| text.split(" ") }
  end

  # The same over SOAP 1.2.
  class Lists12 < Lists11
    version "1.2"
  end

  # A header, a nil, non-ASCII text and one object passed twice, in every style.
  # PHP writes a null rpc/literal part as an empty element (an rpc/literal part
  # has a type, not an element, so it cannot be nillable): the service gets "".
  def test_php_soap_client_header_nil_text_and_shared_value
    require_operation_keywords # the service's whoAmI reads its header through context:
    require_peer(PhpServerInteropTest.php?, "php-cli with php-soap")
    command = [PhpServerInteropTest::PHP, File.join(PhpServerInteropTest::SCRIPTS, "client.php")]
    check_more(command, paths: %w[/document /encoded /rpc], empty_nil: %w[/rpc])
  end
end
