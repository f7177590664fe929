# frozen_string_literal: true

require "openssl"
require "securerandom"

module Wirebind
  module SOAP
    module Transport
      # HTTP Digest authentication (RFC 7616) around any adapter (the client's
      # +digest_auth:+): a request the server answers 401 with a +Digest+
      # challenge is sent once more with its answer, and the challenge is kept,
      # so later requests answer it at once (the nonce count going up) until the
      # server says it is +stale+. The 401 itself never reaches the caller unless
      # the answer was refused (wrong credentials: an {HTTPError} 401). SHA-256 is
      # preferred when offered, then MD5; +-sess+ variants and +qop="auth"+ (or none).
      # A 401 comes before the request is processed, so sending it again sends
      # nothing twice.
      # @api private
      class DigestAuth
        ALGORITHMS = { "SHA-256" => "SHA256", "SHA-256-SESS" => "SHA256", "MD5" => "MD5", "MD5-SESS" => "MD5" }.freeze
        # One auth-param: a token, = and a token or a quoted string.
        PARAM = /\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))\s*,?/

        # A challenge as received, and how many times its nonce was used.
        Challenge = Struct.new(:realm, :nonce, :opaque, :algorithm, :qop, :count)

        # @param adapter [#request] the adapter requests go through
        # @param user [String]
        # @param password [String]
        def initialize(adapter, user, password)
          @adapter = adapter
          @user = user.to_s
          @password = password.to_s
          @challenge = nil
          @lock = Mutex.new
        end

        # @see Transport
        def request(path, headers, body, &block)
          answered = authorization(path)
          result, challenge = attempt(path, headers, answered, body, &block)
          return result unless challenge

          # Answer the fresh challenge (none answered yet, or ours was stale), once.
          @lock.synchronize { @challenge = challenge }
          result, = attempt(path, headers, authorization(path), body, retrying: true, &block)
          result
        end

        # @return [void]
        def close
          @adapter.close
        end

        # @return [Integer] connections the adapter opened
        def connections_opened
          @adapter.connections_opened
        end

        private

        # One exchange; [the block's result, nil], or [nil, a challenge to answer].
        def attempt(path, headers, authorization, body, retrying: false, &block)
          challenge = nil
          sent = authorization ? headers.merge("Authorization" => authorization) : headers
          result = @adapter.request(path, sent, body) do |status, response_headers, reader|
            offered = status == 401 && !retrying && strongest(response_headers["www-authenticate"].to_s)
            if offered && (authorization.nil? || offered.stale)
              challenge = offered.challenge
              next nil # the adapter reads what is left of the 401's body
            end
            block.call(status, response_headers, reader)
          end
          [result, challenge]
        end

        # The Authorization header answering the kept challenge for +path+, or nil.
        def authorization(path)
          @lock.synchronize do
            challenge = @challenge or return nil
            challenge.count += 1
            answer(challenge, path, challenge.count)
          end
        end

        def answer(challenge, path, count)
          hash = ALGORITHMS.fetch(challenge.algorithm.upcase)
          digest = ->(text) { OpenSSL::Digest.hexdigest(hash, text) }
          cnonce = SecureRandom.hex(16)
          nc = format("%08x", count)
          secret = digest.call("#{@user}:#{challenge.realm}:#{@password}")
          secret = digest.call("#{secret}:#{challenge.nonce}:#{cnonce}") if challenge.algorithm.upcase.end_with?("-SESS")
          method = digest.call("POST:#{path}")
          response =
            if challenge.qop
              digest.call("#{secret}:#{challenge.nonce}:#{nc}:#{cnonce}:#{challenge.qop}:#{method}")
            else
              digest.call("#{secret}:#{challenge.nonce}:#{method}")
            end
          fields = [%(username="#{quote(@user)}"), %(realm="#{quote(challenge.realm)}"), %(nonce="#{quote(challenge.nonce)}"),
                    %(uri="#{quote(path)}"), "algorithm=#{challenge.algorithm}", %(response="#{response}")]
          fields.push("qop=#{challenge.qop}", "nc=#{nc}", %(cnonce="#{cnonce}")) if challenge.qop
          fields << %(opaque="#{quote(challenge.opaque)}") if challenge.opaque
          "Digest #{fields.join(', ')}"
        end

        Offer = Struct.new(:challenge, :stale)
        private_constant :Offer

        # The strongest Digest challenge among those in +header+ (several may be
        # joined by commas), as an Offer; nil when none can be answered.
        def strongest(header)
          offers = header.split(/(?=\bDigest\s)/i).filter_map do |part|
            next unless part.match?(/\ADigest\s/i)

            params = {}
            part.sub(/\ADigest\s+/i, "").scan(PARAM) { |name, quoted, token| params[name.downcase] = quoted ? quoted.gsub(/\\(.)/, '\1') : token }
            algorithm = params.fetch("algorithm", "MD5")
            next unless ALGORITHMS.key?(algorithm.upcase) && params["nonce"] && params["realm"]

            qops = params["qop"]&.split(",")&.map(&:strip)
            next if qops && !qops.include?("auth") # auth-int would need the body's hash: not offered by SOAP servers

            Offer.new(Challenge.new(params["realm"], params["nonce"], params["opaque"], algorithm, qops && "auth", 0),
                      params["stale"].to_s.casecmp?("true"))
          end
          offers.max_by { |offer| offer.challenge.algorithm.upcase.start_with?("SHA-256") ? 1 : 0 }
        end

        def quote(text)
          text.to_s.gsub(/["\\]/) { |c| "\\#{c}" }
        end
      end
    end
  end
end
