#!/usr/bin/perl
# SOAP::Lite's server (Debian's libsoap-lite-perl) on 127.0.0.1 and the port
# given: rpc/encoded, what test/soap/interop/soap_lite_test.rb calls.
use strict;
use warnings;
use utf8;
use SOAP::Transport::HTTP;

package Interop;
sub greet { my ($class, $name) = @_; return "Grüße, $name"; }
sub plain { my ($class, $name) = @_; return "hi $name"; }
sub shared {
  my @list = (1, 2, 3);
  my $ref = \@list;
  return { first => $ref, second => $ref };
}

# document/literal (perl/document.wsdl): named parts, a record, non-ASCII text
# typed as a string (not SOAP::Lite's base64Binary guess).
sub whoIs {
  my ($class, $name) = @_;
  return SOAP::Data->name(person => \SOAP::Data->value(
    SOAP::Data->name(name => "$name \x{2713}")->type('string'), SOAP::Data->name(age => 42)->type('int')));
}

package main;
my $daemon = SOAP::Transport::HTTP::Daemon->new(LocalAddr => '127.0.0.1', LocalPort => $ARGV[0], Reuse => 1)
  ->dispatch_to('Interop');
# One request per connection (Connection: close): the daemon serves one
# connection at a time, and a client's kept-alive connection would hold it.
while (my $connection = $daemon->accept) {
  if (my $request = $connection->get_request) {
    $daemon->request($request);
    $daemon->SOAP::Transport::HTTP::Server::handle;
    my $response = $daemon->response;
    $response->header(Connection => 'close');
    $connection->send_response($response);
  }
  $connection->close;
}
