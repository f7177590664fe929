# frozen_string_literal: true

require_relative "json_test_support"
require_relative "../support/linear_time"

# Decoding and serializing take time linear in the input on hostile input
# too: object keys crafted to collide in the native plan's hash table (FNV-1a,
# unseeded: its table holds only the schema's keys, so a collision costs at
# most a probe per declared key), many distinct keys for :any (Ruby's Hash,
# seeded), one key repeated, and serializers over many records.
class JSONLinearTimeTest < Minitest::Test
  include JSONTestHelpers
  include Wirebind::LinearTime

  BACKENDS = Wirebind.backend == :native ? %i[pure native].freeze : %i[pure].freeze

  class Wide
    include Wirebind::Model
    attribute :id, :integer
    attribute :name, :string
    attribute :tags, [:string]
  end

  # A hash-flood generator: keys whose FNV-1a hash (the native plan's, in
  # json_plan.h) agrees with +like+'s in the low 12 bits, so that in any plan
  # table of up to 4096 buckets they all start probing where +like+ sits.
  # The low k bits of FNV-1a depend only on the low k bits of its state, and
  # the last byte, xored in before the multiply, sets the low 8: a random
  # prefix whose state has the right bits 8-11 is finished by the byte that
  # sets the rest, when that byte is a plain printable character.
  module Flood
    PRIME = 16_777_619
    BASIS = 2_166_136_261
    BITS = 12
    MASK = (1 << BITS) - 1
    PRIME_INVERSE = (1..MASK).find { |x| ((PRIME * x) & MASK) == 1 } # PRIME is odd: it has one

    module_function

    def fnv1a(bytes, state = BASIS)
      bytes.each_byte { |byte| state = ((state ^ byte) * PRIME) & 0xFFFF_FFFF }
      state
    end

    # @return [Array<String>] +count+ distinct ASCII keys
    def keys(count, like:, random:)
      target = fnv1a(like) & MASK
      wanted = (target * PRIME_INVERSE) & MASK # (state ^ byte) before the last multiply
      keys = {}
      while keys.size < count
        prefix = Array.new(7) { (97 + random.rand(26)).chr }.join
        state = fnv1a(prefix)
        next unless (state & 0xF00) == (wanted & 0xF00)

        byte = (state ^ wanted) & 0xFF
        next unless byte.between?(0x21, 0x7E) && byte != 0x22 && byte != 0x5C

        key = prefix + byte.chr
        raise "flood generator is wrong" unless (fnv1a(key) & MASK) == target

        keys[key] = true
      end
      keys.keys
    end
  end

  def test_the_flood_generator_collides
    random = Random.new(random_seed)
    keys = Flood.keys(50, like: "name", random: random)

    assert_equal 50, keys.uniq.size
    keys.each { |key| assert_equal Flood.fnv1a("name") & 0xFFF, Flood.fnv1a(key) & 0xFFF }
  end

  def test_colliding_unknown_keys_of_a_typed_object
    random = Random.new(random_seed)
    keys = Flood.keys(8_000, like: "name", random: random)
    BACKENDS.each do |backend|
      assert_linear_time("typed object, colliding keys (#{backend})", 2_000) do |n|
        json = "{#{keys.first(n).map { |key| %("#{key}":1) }.join(',')},\"name\":\"x\"}"
        -> { assert_equal "x", JSON.decode(json, Wide, backend: backend).name }
      end
    end
  end

  def test_colliding_keys_of_an_untyped_object
    random = Random.new(random_seed)
    keys = Flood.keys(8_000, like: "name", random: random)
    BACKENDS.each do |backend|
      assert_linear_time(":any object, colliding keys (#{backend})", 2_000) do |n|
        json = "{#{keys.first(n).map { |key| %("#{key}":[1]) }.join(',')}}"
        -> { assert_equal n, JSON.decode(json, :any, backend: backend).size }
      end
    end
  end

  def test_one_key_repeated
    BACKENDS.each do |backend|
      assert_linear_time("one key repeated (#{backend})", 5_000) do |n|
        json = "{#{Array.new(n) { |i| %("name":"#{i}") }.join(',')}}"
        -> { assert_equal (n - 1).to_s, JSON.decode(json, Wide, backend: backend).name }
      end
      assert_linear_time("one key repeated, :any (#{backend})", 5_000) do |n|
        json = "{#{Array.new(n) { |i| %("k":#{i}) }.join(',')}}"
        -> { assert_equal({ "k" => n - 1 }, JSON.decode(json, :any, backend: backend)) }
      end
    end
  end

  class Author
    include Wirebind::Model
    attribute :id, :string
    attribute :name, :string
  end

  class Post
    include Wirebind::Model
    attribute :id, :string
    attribute :title, :string
    attribute :author, Author
  end

  class AuthorSerializer < Wirebind::Serializer
    type "author"
    attributes :name
  end

  class PostSerializer < Wirebind::Serializer
    type "post"
    attributes :title
    one :author, AuthorSerializer
  end

  # JSON:API's included list drops duplicates: with every record's author
  # distinct, and with keys crafted as above for ids, it stays linear.
  def test_serializers_over_many_records
    random = Random.new(random_seed)
    ids = Flood.keys(8_000, like: "id", random: random)
    BACKENDS.each do |backend|
      %i[plain hal json_api siren].each do |format|
        assert_linear_time("serializer #{format} (#{backend})", 2_000) do |n|
          posts = Array.new(n) { |i| Post.new(id: ids[i], title: "t#{i}", author: Author.new(id: ids[i], name: "a")) }
          serializer = PostSerializer.new(posts, format: format, backend: backend)
          -> { serializer.to_json }
        end
      end
    end
  end
end
