#!/usr/bin/perl
# SOAP::Lite's client (Debian's libsoap-lite-perl) calling the wirebind interop
# service in rpc/encoded, SOAP 1.1, without its WSDL (SOAP::Lite's own way):
# perl client.pl URL. Prints one JSON object for the Ruby test to check.
use strict;
use warnings;
use JSON::PP;
use SOAP::Lite;

my $url = $ARGV[0];
# default_ns, not ns(URI, 'tns'): with a header in another element, SOAP::Lite
# leaves the tns prefix of the operation element undeclared (not well-formed).
# a path ending in 12 is a SOAP 1.2 service (SOAP::Lite's soapversion)
my $soap = SOAP::Lite->soapversion($url =~ /12$/ ? '1.2' : '1.1')->proxy($url, timeout => 10)->default_ns('urn:wirebind:interop')
  ->on_action(sub { qq("$_[1]") })->on_fault(sub { $_[1] });
sub call {
  my ($operation, @parts) = @_;
  my $response = $soap->call($operation => @parts);
  die "no response to $operation: " . $soap->transport->status . "\n" unless ref $response;
  return $response;
}

my %out;
if (($ARGV[1] // '') eq 'more') {
  # A header, a nil, non-ASCII text and one hash passed twice (SOAP::Lite writes
  # it once, as a multiRef the two parts point at with href).
  my $auth = SOAP::Header->name(AuthHeader => \SOAP::Data->value(
    SOAP::Data->name(user => 'ann'), SOAP::Data->name(password => 'secret')))->uri('urn:wirebind:interop');
  my %more;
  $more{whoAmI} = [call('whoAmI', SOAP::Data->name(greeting => 'hello'), $auth)->result,
                   call('whoAmI', SOAP::Data->name(greeting => 'hello'))->result];
  $more{echo} = [call('echo', SOAP::Data->name(text => "Gr\x{fc}\x{df}e \x{2713} \x{65e5}\x{672c}"))->result,
                 call('echo', SOAP::Data->name(text => undef))->result];
  my $version = { name => '1.0', sequence => 1 };
  my $pair = call('pair', SOAP::Data->name(first => $version), SOAP::Data->name(second => $version))->result;
  $more{pair} = [map { [$_->{name}, "$_->{sequence}"] } @$pair];
  print JSON::PP->new->utf8->canonical->encode({ more => \%more }), "\n";
  exit 0;
}
$out{login} = call('login', SOAP::Data->name(user => 'ann'), SOAP::Data->name(password => 'secret'))->result;
my $issues = call('getIssues', SOAP::Data->name(token => 'token-ann'), SOAP::Data->name(jql => 'project = OPS'),
                  SOAP::Data->name(max => 2)->type('int'))->result;
$out{issues} = [map {
  { key => $_->{key}, summary => $_->{summary}, votes => $_->{votes} + 0, created => $_->{created},
    versions => [map { $_->{name} } @{$_->{versions}}] }
} @$issues];
my $issue = SOAP::Data->name(issue => \SOAP::Data->value(
  SOAP::Data->name(summary => 'From Perl')->type('string'), SOAP::Data->name(votes => 5)->type('int'),
  SOAP::Data->name(created => '2024-05-06T07:08:09Z')->type('dateTime')))->type('Issue');
my $created = call('createIssue', SOAP::Data->name(token => 't'), $issue)->result;
$out{created} = { key => $created->{key}, summary => $created->{summary}, votes => $created->{votes} + 0 };
my $fault = call('login', SOAP::Data->name(user => 'bob'), SOAP::Data->name(password => 'nope'));
$out{fault} = $fault->fault ? { code => $fault->faultcode, message => $fault->faultstring } : undef;
print JSON::PP->new->utf8->canonical->encode(\%out), "\n";
