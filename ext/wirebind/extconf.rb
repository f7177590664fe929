# frozen_string_literal: true

require "mkmf"

# Without a working C compiler the gem still installs: the pure-Ruby backend keeps
# the same contract, and lib/wirebind/backend.rb uses it when the extension is absent.
# mkmf raises when the compiler cannot build anything; a Makefile that builds nothing
# lets `gem install` finish.
compiler_works =
  begin
    try_compile("int main(void) { return 0; }")
  rescue StandardError
    false
  end
unless compiler_works
  message "wirebind: no working C compiler, so no C extension: the pure-Ruby backend will be used\n"
  File.write("Makefile", dummy_makefile($srcdir).join)
  exit
end

# Only Init_wirebind_ext is exported (RUBY_FUNC_EXPORTED); everything else is hidden.
# -Wextra is tried together with the -Wno- flags it needs: alone, Ruby's own headers
# trip -Wunused-parameter in mkmf's -Werror check and the flag would be dropped.
append_cflags(["-std=c99", "-O2", "-fvisibility=hidden", "-Wall",
               "-Wextra -Wno-unused-parameter -Wno-missing-field-initializers"])

# WIREBIND_SANITIZE=1 builds with AddressSanitizer and UndefinedBehaviorSanitizer
# (rake test:asan); WIREBIND_DEBUG=1 keeps assertions and symbols for gdb/valgrind.
if ENV["WIREBIND_SANITIZE"]
  flags = %w[-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -O1 -g]
  append_cflags(flags)
  $LDFLAGS << " -fsanitize=address,undefined"
elsif ENV["WIREBIND_DEBUG"]
  append_cflags(%w[-O0 -g3])
else
  $defs << "-DNDEBUG"
end

create_makefile("wirebind/wirebind_ext")
