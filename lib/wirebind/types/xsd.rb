# frozen_string_literal: true

module Wirebind
  module Types
    # XML Schema's built-in types and wirebind's scalar types, both ways, once:
    # what a WSDL's or an +xsi:type+'s XSD name reads as, and what a scalar is
    # written as in a generated WSDL or an +xsi:type+.
    #
    # @api private
    module XSD
      # Every built-in XSD type wirebind reads from a schema, by local name (the
      # SOAP encoding namespace uses the same names); +:any+ is open content.
      SCALARS = {
        "string" => :string, "normalizedString" => :string, "token" => :string, "language" => :string,
        "Name" => :string, "NCName" => :string, "NMTOKEN" => :string, "NMTOKENS" => :string, "ID" => :string,
        "IDREF" => :string, "IDREFS" => :string, "ENTITY" => :string, "ENTITIES" => :string, "anyURI" => :string,
        "QName" => :string, "NOTATION" => :string, "hexBinary" => :string, "duration" => :string, "time" => :string,
        "gYear" => :string, "gYearMonth" => :string, "gMonth" => :string, "gMonthDay" => :string, "gDay" => :string,
        "anyType" => :any, "anySimpleType" => :string,
        "integer" => :integer, "int" => :integer, "long" => :integer, "short" => :integer, "byte" => :integer,
        "nonNegativeInteger" => :integer, "nonPositiveInteger" => :integer, "positiveInteger" => :integer,
        "negativeInteger" => :integer, "unsignedLong" => :integer, "unsignedInt" => :integer,
        "unsignedShort" => :integer, "unsignedByte" => :integer,
        "float" => :float, "double" => :float, "decimal" => :decimal, "boolean" => :boolean,
        "dateTime" => :time, "timeInstant" => :time, "date" => :date, "base64Binary" => :base64, "base64" => :base64
      }.freeze

      # The built-in types read as +:string+ whose text is checked against their
      # lexical space (a +:string+ attribute's +format:+, {StringFormat}).
      STRING_FORMATS = StringFormat::FORMATS.to_h { |format, (name, _, _)| [name, format] }.freeze

      # The XSD names an +xsi:type+ in an instance document is read as a scalar
      # by (a narrower set than a schema: an instance's other built-in names
      # stay unknown types).
      INSTANCE_SCALARS = SCALARS.slice(
        "string", "normalizedString", "token", "anyURI", "QName",
        "int", "long", "short", "byte", "integer",
        "unsignedInt", "unsignedLong", "unsignedShort", "unsignedByte",
        "nonNegativeInteger", "positiveInteger", "negativeInteger", "nonPositiveInteger",
        "double", "float", "decimal", "boolean",
        "dateTime", "date", "base64Binary", "base64"
      ).freeze

      # The XSD name each scalar type is written as.
      NAMES = {
        string: "string", integer: "long", float: "double", decimal: "decimal",
        boolean: "boolean", time: "dateTime", date: "date", base64: "base64Binary"
      }.freeze

      # The XSD name of each open-content type in a generated WSDL: any element
      # content, and a QName.
      OPEN_NAMES = { any: "anyType", xml: "anyType", qname: "QName" }.freeze
    end
  end
end
