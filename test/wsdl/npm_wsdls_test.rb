# frozen_string_literal: true

require_relative "real_wsdl_support"

module Wirebind
  # Real services' WSDLs that npm packages ship (rakelib/real_documents.yml,
  # unpacked by `rake fixtures`): AFIP's (Argentina's tax agency) in afip.ts 3.2.2
  # (MIT) -- electronic invoices (wsfe, ASP.NET, a SOAP 1.1 and a 1.2 binding),
  # login (wsaa, Axis 1.4) and the taxpayer registers (JAX-WS) -- and QuickBooks
  # Web Connector's in quickbooks-js 1.0.0 (MIT), whose XML declaration follows a
  # licence comment. Each generates with `wirebind generate`, loads, counts what
  # REXML counts, round trips a sample of every type, and its samples are valid
  # against its own schemas. Neither package publishes responses.
  class WSDLNpmTest < Minitest::Test
    include TestSupport
    include RealWSDLSupport

    SETS = {
      "afip.ts-3.2.2/lib/soap/wsdl" => %w[
        wsfe wsaa ws_sr_padron_a4 ws_sr_padron_a5 ws_sr_padron_a10 ws_sr_padron_a13 ws_sr_inscription_proof
      ],
      "quickbooks-js-1.0.0/lib" => %w[qbws]
    }.freeze
    # The line of a declaration that is not at the start of its file.
    MISPLACED_DECLARATION = { "qbws" => 14 }.freeze

    SETS.each do |directory, names|
      package, folder = directory.split("/", 2)
      names.each do |name|
        define_method(:"test_#{name}") do
          path = real_wsdl_path(package, "#{folder}/#{name}.wsdl")
          warnings = MISPLACED_DECLARATION.key?(name) ? [misplaced_declaration(path, MISPLACED_DECLARATION[name])] : []
          assert_real_wsdl(path, "WirebindNpm#{name.split('_').map(&:capitalize).join}", warnings: warnings)
        end
      end
    end
  end
end
