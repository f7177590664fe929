# frozen_string_literal: true

require "openssl"

module Wirebind
  module SOAP
    module WSSE
      # What a {Service} requires of a request's +wsse:Security+ header
      # ({Service.wsse}): a UsernameToken checked against a user lookup, a fresh
      # Timestamp, an X.509 signature from a trusted certificate (checked as
      # {Verifier} does, over the Body). Nonces (and signature values) already
      # seen within the replay window are refused. A request that fails is
      # answered with the WS-Security fault for it (+wsse:InvalidSecurity+,
      # +wsse:FailedAuthentication+, +wsse:FailedCheck+,
      # +wsse:InvalidSecurityToken+, +wsse:MessageExpired+): as the SOAP 1.1
      # faultcode, or as a subcode of SOAP 1.2's +Sender+. The operation is not
      # called, and its block can read who was authenticated from the Rack env's
      # +"wirebind.wsse"+ ({Result}).
      class Policy
        # Who a request was authenticated as.
        # @!attribute [r] username
        #   @return [String, nil] the UsernameToken's user
        # @!attribute [r] certificate
        #   @return [OpenSSL::X509::Certificate, nil] the certificate that signed the request
        Result = Struct.new(:username, :certificate)

        PASSWORD_TEXT = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText"
        PASSWORD_DIGEST = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest"
        private_constant :PASSWORD_TEXT, :PASSWORD_DIGEST

        # @param users [#call, Hash, nil] given a username, its password (nil: no such
        #   user), or a Hash of usernames to passwords; given: a UsernameToken is required
        # @param digest_only [Boolean] refuse +PasswordText+ (a password in the clear)
        # @param timestamp [Boolean] require a Timestamp
        # @param signature [OpenSSL::X509::Store, OpenSSL::X509::Certificate, String, nil]
        #   require a signature over the Body by a certificate this trusts ({Verifier})
        # @param max_skew [Numeric] seconds a Created or Expires may be off the local clock
        # @param replay_window [Numeric] seconds a nonce or a signature is remembered
        # @param replay_cache [Integer] most nonces and signatures remembered (the oldest go first)
        def initialize(users: nil, digest_only: false, timestamp: false, signature: nil, max_skew: 300, replay_window: 300,
                       replay_cache: 10_000)
          raise ArgumentError, "users: must be a Hash or answer call(username)" unless users.nil? || users.is_a?(Hash) || users.respond_to?(:call)
          raise ArgumentError, "a policy requires something: users:, timestamp: or signature:" unless users || timestamp || signature

          @users = users.is_a?(Hash) ? users.dup.freeze.to_proc : users
          @digest_only = digest_only
          @timestamp = timestamp
          @verifier = signature && Verifier.new(signature, max_skew: max_skew)
          @max_skew = max_skew
          @replay_window = replay_window
          @replay_cache = replay_cache
          @seen = {}
          @lock = Mutex.new
        end

        # @api private
        # @param xml [String] the whole request
        # @param version [String, Version] the request's SOAP version (+"1.1"+ or +"1.2"+), for the fault's shape
        # @return [Result]
        # @raise [Fault]
        def check(xml, version, now: Time.now)
          doc = Canonical.parse(xml)
          security = security_header(doc, version)
          certificate = @verifier && signed_by(doc, version, now)
          check_timestamp(security, version, now) if @timestamp
          username = @users && authenticate(security, version, now)
          Result.new(username, certificate).freeze
        rescue SignatureError => e
          raise fault(version, "InvalidSecurity", e.message)
        end

        private

        def security_header(doc, version)
          header = doc.root&.element_children&.find { |child| child.name == "Header" }
          securities = header ? header.element_children.select { |c| c.name == "Security" && c.namespace&.href == WSSE_NS } : []
          raise fault(version, "InvalidSecurity", "the request has no wsse:Security header") if securities.empty?
          raise fault(version, "InvalidSecurity", "the request has #{securities.size} wsse:Security headers") if securities.size > 1

          securities.first
        end

        def signed_by(doc, version, now)
          certificate = @verifier.verify(doc, now: now)
          value = doc.at_xpath("//ds:SignatureValue", Canonical::NAMESPACES).text
          raise fault(version, "FailedCheck", "this signature was seen before (a replayed request)") unless first_use?("sig:#{value}", now)

          certificate
        rescue SignatureError => e
          raise fault(version, "FailedCheck", e.message)
        rescue UntrustedCertificateError => e
          raise fault(version, "InvalidSecurityToken", e.message)
        rescue TimestampError => e
          raise fault(version, "MessageExpired", e.message)
        end

        def check_timestamp(security, version, now)
          timestamp = security.at_xpath("wsu:Timestamp", Canonical::NAMESPACES)
          raise fault(version, "InvalidSecurity", "the request has no wsu:Timestamp") unless timestamp

          created = time(timestamp, "wsu:Created", version)
          expires = time(timestamp, "wsu:Expires", version)
          raise fault(version, "MessageExpired", "the Timestamp was created in the future") if created && created > now + @max_skew
          raise fault(version, "MessageExpired", "the request expired at #{expires.iso8601}") if expires && expires < now - @max_skew
        end

        def authenticate(security, version, now)
          token = security.at_xpath("wsse:UsernameToken", Canonical::NAMESPACES)
          raise fault(version, "InvalidSecurity", "the request has no wsse:UsernameToken") unless token

          username = token.at_xpath("wsse:Username", Canonical::NAMESPACES)&.text.to_s
          password = token.at_xpath("wsse:Password", Canonical::NAMESPACES)
          known = @users.call(username)
          given = password&.text.to_s
          ok =
            case password && (password["Type"] || PASSWORD_TEXT)
            when PASSWORD_DIGEST then known && digest_matches?(token, known, given, version, now)
            when PASSWORD_TEXT
              raise fault(version, "FailedAuthentication", "a password in the clear is refused: use PasswordDigest") if @digest_only

              known && equal?(known.to_s, given)
            end
          raise fault(version, "FailedAuthentication", "the user or password is wrong") unless ok

          username
        end

        def digest_matches?(token, known, given, version, now)
          nonce = token.at_xpath("wsse:Nonce", Canonical::NAMESPACES)&.text.to_s
          created = time(token, "wsu:Created", version)
          raise fault(version, "InvalidSecurity", "a PasswordDigest needs a Nonce and a Created") if nonce.empty? || created.nil?
          raise fault(version, "MessageExpired", "the UsernameToken was created at #{created.iso8601}") if (created - now).abs > @max_skew
          raise fault(version, "FailedAuthentication", "this nonce was seen before (a replayed request)") unless first_use?("nonce:#{nonce}", now)

          expected = [OpenSSL::Digest::SHA1.digest(nonce.unpack1("m") + token.at_xpath("wsu:Created", Canonical::NAMESPACES).text + known.to_s)].pack("m0")
          equal?(expected, given.strip)
        end

        # Remembers +key+; false when it was seen within the replay window.
        def first_use?(key, now)
          @lock.synchronize do
            @seen.delete_if { |_, expires| expires < now } if @seen.size >= @replay_cache
            @seen.shift while @seen.size >= @replay_cache # the oldest go first
            return false if (expires = @seen[key]) && expires >= now

            @seen[key] = now + @replay_window
            true
          end
        end

        def time(node, path, version)
          text = node.at_xpath(path, Canonical::NAMESPACES)&.text or return nil
          Time.iso8601(text.strip)
        rescue ArgumentError
          raise fault(version, "InvalidSecurity", "#{path} #{text.inspect} is not an xsd:dateTime")
        end

        def equal?(left, right)
          left.bytesize == right.bytesize && OpenSSL.fixed_length_secure_compare(left, right)
        end

        # WS-Security 1.1 §12's faults: the code itself in SOAP 1.1, a subcode of Sender in 1.2.
        def fault(version, code, reason)
          Version.fetch(version).wsse_fault(code, reason)
        end
      end
    end
  end
end
