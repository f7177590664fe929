# frozen_string_literal: true

# Everything the C extension reaches in Ruby, loaded before it: the extension's
# Init reads these constants once (ext/wirebind/hooks.c) and never looks a name
# up again. Date and BigDecimal are required here so that C can build and check
# their values from the first call.
require "bigdecimal"
require "date"
require_relative "shareable"
require_relative "types"
require_relative "model"
require_relative "xml/plan"
require_relative "xml/references"
require_relative "xml/escape"
require_relative "xml/pure/encoder"
require_relative "xml/capture"
require_relative "xml/open_content"
require_relative "json/plan"
require_relative "json/pure/decoder"
require_relative "json/writer"
require_relative "serializer/values"

module Wirebind
  # The one list of the Ruby classes, constants and callbacks the C extension
  # uses. ext/wirebind/hooks.c reads each constant below once, in
  # +Init_wirebind_ext+, into +wb_hooks+, and keeps it alive: renaming or moving
  # one of these is a change to this file, not a hunt through the C sources.
  # {CALLBACKS} names the methods C calls on each receiver (all public, since
  # C calls them as Ruby would).
  #
  # @api private
  module NativeHooks
    # ---- errors C raises or rescues -------------------------------------------------------------
    PARSE_ERROR = ParseError
    LIMIT_ERROR = LimitError
    DECODE_ERROR = DecodeError
    ENCODE_ERROR = EncodeError
    # rescued around every Ruby conversion, rewrapped with a path and position
    INVALID_VALUE = Types::InvalidValue
    # rescued around the builders of plans that check values, raised again at the record's path
    REFUSAL = Model::Attribute::Refusal
    BINARY_RANGE_ERROR = Binary::RangeError
    BINARY_READ_ONLY_ERROR = Binary::ReadOnlyError
    # rescued around JSON's +next_chunk+, raised again as a ParseError
    JSON_SOURCE_INVALID = JSON::Source::Invalid

    # ---- classes whose values C builds or recognizes --------------------------------------------
    DATE = ::Date
    DATE_TIME = ::DateTime
    BIG_DECIMAL = ::BigDecimal
    DATE_GREGORIAN = ::Date::GREGORIAN
    MODEL = Model

    # ---- receivers of the Ruby code C calls (methods in CALLBACKS) ------------------------------
    TYPES = Types
    QNAME_TYPE = Types::QNameType
    XML_MODULE = XML
    XML_PLAN = XML::Plan
    XML_ENCODER = XML::Escape
    XML_CAPTURE = XML::Capture
    XML_OPEN_CONTENT = XML::OpenContent
    # the Ruby twin, whose words the C decoder's messages reuse (this file is
    # read before Backend holds the pair, so the twin is named here)
    JSON_PURE = JSON::Pure
    JSON_WRITER = JSON::Writer
    JSON_PLAN = JSON::Plan
    SERIALIZER_VALUES = Serializer::Values
    BINARY = Binary

    # ---- constants C compares with or writes ----------------------------------------------------
    XSI_DECLARATION = XML::Escape::XSI_DECLARATION
    REFERENCE_PENDING = XML::References::PENDING
    JSON_EXPECTED = JSON::Plan::EXPECTED

    # What C calls on each receiver above (the Native modules' own Ruby methods,
    # +plan_for+ and +subtype_plan+, are called on the module C defines). Some
    # are defined by files loaded after the extension (binary.rb, xml.rb):
    # test/native_hooks_test.rb checks them all once everything is loaded.
    CALLBACKS = Shareable.make(
      TYPES: %i[excerpt describe to_xml_text from_xml_text],
      QNAME_TYPE: %i[split resolve],
      MODEL: %i[xml_types?],
      XML_MODULE: %i[subtype_parts instance_text],
      XML_PLAN: %i[for namespaces],
      XML_ENCODER: %i[text attribute declaration],
      XML_CAPTURE: %i[new leaf_value],
      XML_OPEN_CONTENT: %i[element_content qname_attribute wildcard_element],
      JSON_PURE: %i[convert_text describe_char],
      JSON_PLAN: %i[for],
      JSON_WRITER: %i[string integer float decimal boolean time date base64 nested format_path],
      SERIALIZER_VALUES: %i[native_text native_any],
      BINARY: %i[check_decode check_encode],
      DATE: %i[new]
    )
  end
end
