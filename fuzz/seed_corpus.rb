# frozen_string_literal: true

# Writes a seed corpus for a fuzz harness into the directory given.
#
# xml (the default; corpus fuzz/corpus), for fuzz/xml_tokenizer_fuzz.c: every
# document of the W3C XML conformance suite (../shared/conformance/xmlconf)
# and the SOAP and attack fixtures (../shared/fixtures), each behind two
# configuration bytes (see the harness): read whole with text wanted
# everywhere, and read in 7-byte chunks with marks, a small max_depth and
# DTDs refused.
#
# json (corpus fuzz/json_corpus), for fuzz/json_scanner_fuzz.c: every document
# of JSONTestSuite (../shared/conformance/JSONTestSuite/test_parsing), behind
# three configuration bytes: read whole; in 7-byte chunks with a 16-byte
# max_token_size; a byte at a time, strings only checked, max_depth 8.
#
# hpack (corpus fuzz/hpack_corpus), for fuzz/hpack_fuzz.c: every name and
# value of HPACK's static table and a few realistic headers, raw and
# Huffman-coded (by the pure coder), and the two as string literals, behind
# two configuration bytes: 7-bit integers with raw re-encoding; 5-bit with Huffman.
#
#   ruby fuzz/seed_corpus.rb [xml|json|hpack] [corpus_dir]
require "digest"
require "fileutils"

root = File.expand_path("..", __dir__)
shared = File.expand_path("../shared", root)
format = %w[xml json hpack].include?(ARGV.first) ? ARGV.shift : "xml"
corpus = File.expand_path(ARGV.fetch(0, File.join(root, "fuzz", format == "xml" ? "corpus" : "#{format}_corpus")))
FileUtils.mkdir_p(corpus)

if format == "hpack"
  $LOAD_PATH.unshift(File.join(root, "lib"))
  ENV["WIREBIND_BACKEND"] = "pure" # the reference coder; no build needed
  require "wirebind"
  require "wirebind/http2"
  huffman = Wirebind::HTTP2::HPACK.const_get(:Huffman)
  strings = Wirebind::HTTP2::HPACK::STATIC_TABLE.flatten.uniq +
            ["www.example.com", "no-cache", "custom-key", "Mon, 21 Oct 2013 20:13:21 GMT", "https://www.example.com",
             "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1", "application/json, text/plain, */*"]
  sources = strings.flat_map do |string|
    coded = huffman.encode(string)
    [string.b, coded, [0x80 | coded.bytesize].pack("C") + coded + [string.bytesize].pack("C") + string.b]
  end
  configs = ["\x06".b, "\x0c".b]
elsif format == "json"
  sources = Dir.glob(File.join(shared, "conformance", "JSONTestSuite", "test_parsing", "*.json"))
  configs = ["\x00".b, "\x14".b, "\x49".b]
else
  sources = Dir.glob(File.join(shared, "conformance", "xmlconf", "**", "*.{xml,ent,dtd,xsl}")) +
            Dir.glob(File.join(shared, "fixtures", "{soap,xml_attacks,wsdl}", "**", "*")).select { |f| File.file?(f) }
  configs = ["\x08".b, "\xB4".b] # whole + all text; 7-byte chunks + reject DTD + max_depth 8 + marks
end
abort "seed_corpus: no documents under #{shared} (is ../shared there?)" if sources.empty?

written = 0
sources.each do |path|
  bytes = format == "hpack" ? path : File.binread(path)
  next if bytes.bytesize > 64 * 1024

  configs.each do |config|
    input = config + bytes
    name = File.join(corpus, Digest::SHA1.hexdigest(input))
    next if File.exist?(name)

    File.binwrite(name, input)
    written += 1
  end
end
puts "seed_corpus: #{written} inputs from #{sources.size} files in #{corpus}"
