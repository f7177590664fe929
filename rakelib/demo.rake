# frozen_string_literal: true

desc "Serve a JIRA-like SOAP API under Puma, call it for 1000 issues and stream 100,000 with the wirebind client, time it against Savon"
task demo: :compile do
  ruby "examples/demo.rb"
end
