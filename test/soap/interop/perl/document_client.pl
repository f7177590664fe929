#!/usr/bin/perl
# SOAP::Lite's client (Debian's libsoap-lite-perl) calling the wirebind interop
# service in document/literal, SOAP 1.1. SOAP::Lite has no WSDL-driven literal
# mode: each call is built with SOAP::Data the way its documentation shows for
# .NET-style services (the operation element with a default namespace, its
# parameters as untyped children, autotype off, a SOAPAction of namespace/operation).
# perl document_client.pl URL [more]. Prints the same JSON as client.pl.
use strict;
use warnings;
use JSON::PP;
use SOAP::Lite;

my $url = $ARGV[0];
my $ns = 'urn:wirebind:interop';
# a path ending in 12 is a SOAP 1.2 service (SOAP::Lite's soapversion)
my $soap = SOAP::Lite->soapversion($url =~ /12$/ ? '1.2' : '1.1')->proxy($url, timeout => 10)->on_action(sub { qq("$ns/$_[1]") })->on_fault(sub { $_[1] });
$soap->autotype(0);
sub call {
  my ($operation, @parts) = @_;
  my $response = $soap->call(SOAP::Data->name($operation)->attr({ xmlns => $ns }) => @parts);
  die "no response to $operation: " . $soap->transport->status . "\n" unless ref $response;
  return $response;
}
# A list: under its wrapper's item (or Version) elements, one hash when it has one item.
sub items {
  my ($list, $name) = @_;
  $list = $list->{$name} if ref $list eq 'HASH' && exists $list->{$name};
  return ref $list eq 'ARRAY' ? $list : [$list];
}
sub value { SOAP::Data->name($_[0] => $_[1]) }

if (($ARGV[1] // '') eq 'more') {
  # A header, a nil, non-ASCII text and one hash passed twice (SOAP::Lite writes
  # it once, with an id, and points the second part at it with href).
  my $auth = SOAP::Header->name(AuthHeader => \SOAP::Data->value(value(user => 'ann'), value(password => 'secret')))
    ->attr({ xmlns => $ns });
  my %more;
  $more{whoAmI} = [call('whoAmI', value(greeting => 'hello'), $auth)->result, call('whoAmI', value(greeting => 'hello'))->result];
  $more{echo} = [call('echo', value(text => "Gr\x{fc}\x{df}e \x{2713} \x{65e5}\x{672c}"))->result, call('echo', value(text => undef))->result];
  my $version = { name => '1.0', sequence => 1 };
  my $pair = call('pair', value(first => $version), value(second => $version))->result;
  $more{pair} = [map { [$_->{name}, "$_->{sequence}"] } @{items($pair, 'item')}];
  print JSON::PP->new->utf8->canonical->encode({ more => \%more }), "\n";
  exit 0;
}
my %out;
$out{login} = call('login', value(user => 'ann'), value(password => 'secret'))->result;
my $issues = call('getIssues', value(token => 'token-ann'), value(jql => 'project = OPS'), value(max => 2))->result;
$out{issues} = [map {
  { key => $_->{key}, summary => $_->{summary}, votes => $_->{votes} + 0, created => $_->{created},
    versions => [map { $_->{name} } @{items($_->{versions}, 'Version')}] }
} @{items($issues, 'item')}];
my $issue = value(issue => \SOAP::Data->value(value(summary => 'From Perl'), value(votes => 5), value(created => '2024-05-06T07:08:09Z')));
my $created = call('createIssue', value(token => 't'), $issue)->result;
$out{created} = { key => $created->{key}, summary => $created->{summary}, votes => $created->{votes} + 0 };
my $fault = call('login', value(user => 'bob'), value(password => 'nope'));
# SOAP::Lite's faultcode and faultstring read SOAP 1.1's fields only: 1.2's Code/Value and Reason/Text by path
$out{fault} = $fault->fault ? { code => scalar($fault->faultcode) // $fault->valueof('//Fault/Code/Value'),
                                message => scalar($fault->faultstring) // $fault->valueof('//Fault/Reason/Text') } : undef;
print JSON::PP->new->utf8->canonical->encode(\%out), "\n";
