# frozen_string_literal: true

# Loaded by YARD before it parses (.yardopts: --load). YARD 0.9's @!parse directive
# (which declares the classes and modules defined only in C: ext/wirebind/README.md)
# calls Enumerable#to_set, which Ruby 3.1 has only once set is required.
require "set"
