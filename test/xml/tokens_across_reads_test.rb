# frozen_string_literal: true

require_relative "xml_test_support"

# Comments, CDATA sections and processing instructions are read past in pieces
# (pure: only a chunk of one is held; issue 11): whatever the cuts between reads,
# a document gives the same text, or the same error at the same place, as the same
# bytes passed whole, on both backends. The pieces are full of what may begin a
# closer ('-', ']', '?') and of multi-byte characters.
class XMLTokensAcrossReadsTest < Minitest::Test
  class Doc
    include Wirebind::Model
    xml_root "doc"
    attribute :body, :string
  end

  ALPHABET = ["-", "-", "]", "]", "?", ">", "a", "é", "€", "😀", "\n", " ", "<"].freeze
  BACKENDS = Wirebind.backend == :native ? %i[pure native] : %i[pure]

  def test_tokens_cut_anywhere_read_the_same
    random = Random.new(random_seed)
    400.times do |k|
      xml = "<doc><body>#{Array.new(random.rand(1..4)) { token(random) }.join}</body></doc>"
      expected = outcome(xml, :pure)
      BACKENDS.each do |backend|
        [1, 2, 3, 5].each do |max|
          assert_equal expected, outcome(Wirebind::CodecTestHelpers::TrickleIO.new(xml, seed: k, max: max), backend),
                       "#{backend}, reads of 1 to #{max} bytes: #{xml.inspect}"
        end
      end
    end
  end

  def test_a_big_cdata_section_comes_whole_through_pieces
    text = "é]]" * 100_000
    xml = "<doc><body><!--#{'-é' * 100_000}--><?pi #{'?é' * 100_000}?><![CDATA[#{text}]]>#{'x' * 10}</body></doc>"
    BACKENDS.each do |backend|
      [StringIO.new(xml), Wirebind::CodecTestHelpers::TrickleIO.new(xml, max: 4096)].each do |io|
        assert_equal "#{text}xxxxxxxxxx", Wirebind::XML.decode(io, Doc, backend: backend).body
      end
    end
  end

  private

  def token(random)
    piece = Array.new(random.rand(0..12)) { ALPHABET.sample(random: random) }.join
    case random.rand(4)
    when 0 then "<!--#{piece}-->"
    when 1 then "<![CDATA[#{piece}]]>"
    when 2 then "<?pi #{piece}?>"
    else "t#{piece.delete('<&]')}"
    end
  end

  def outcome(input, backend)
    Wirebind::XML.decode(input, Doc, backend: backend).body
  rescue Wirebind::Error => e
    "#{e.class}: #{e.message}"
  end
end
