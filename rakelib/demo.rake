# frozen_string_literal: true

desc "Decode a generated 1000-issue SOAP response with each backend, re-encode it, time it against Nokogiri"
task demo: :compile do
  ruby "examples/demo.rb"
end
