# frozen_string_literal: true

namespace :bench do
  desc "Time Wirebind::WSDL load + generate and the generated code's load, beside Wasabi's parse (prints)"
  task :wsdl do
    ruby "bench/wsdl.rb"
  end
end
