<?php
// PHP's SoapClient in WSDL mode (Debian's php-soap) calling the wirebind interop
// service: php client.php URL (the endpoint; its ?wsdl is read). Prints one JSON
// object with what each call returned, for the Ruby test to check.
ini_set('soap.wsdl_cache_enabled', '0');
$url = $argv[1];
// rpc (encoded or literal): the parts as arguments, the return value out
$encoded = strpos($url, '/encoded') !== false || strpos($url, '/rpc') !== false;
// a path ending in 12 is a SOAP 1.2 service (PHP takes the version from this option, not the WSDL)
$version = preg_match('#12$#', $url) ? SOAP_1_2 : SOAP_1_1;
$client = new SoapClient($url . '?wsdl', ['exceptions' => true, 'connection_timeout' => 10, 'soap_version' => $version]);

// document/literal wrapped: one array of the wrapper's fields in, the wrapper
// object out; rpc/encoded: the parts as arguments, the return value out.
function call($client, $encoded, $operation, $arguments) {
  if ($encoded) return $client->__soapCall($operation, array_values($arguments));
  $response = $client->__soapCall($operation, [$arguments]);
  return $response->{$operation . 'Return'};
}
// A list comes as an array, or one object when it has one item, or under its
// wrapper's item element in document/literal.
function items($list) {
  if (is_object($list) && isset($list->item)) $list = $list->item;
  if (is_object($list) && isset($list->Version)) $list = $list->Version;
  return is_array($list) ? $list : [$list];
}

$out = [];
if (($argv[2] ?? '') === 'more') {
  // A header (added by hand: the WSDL declares none), a nil, non-ASCII text and
  // one object passed twice (rpc/encoded: PHP writes it once, then href).
  $header = new SoapHeader('urn:wirebind:interop', 'AuthHeader', new SoapVar(
    '<ns1:AuthHeader xmlns:ns1="urn:wirebind:interop"><ns1:user>ann</ns1:user><ns1:password>secret</ns1:password></ns1:AuthHeader>', XSD_ANYXML));
  $more = ['whoAmI' => [], 'echo' => []];
  $client->__setSoapHeaders([$header]);
  $more['whoAmI'][] = call($client, $encoded, 'whoAmI', ['greeting' => 'hello']);
  $client->__setSoapHeaders(null);
  $more['whoAmI'][] = call($client, $encoded, 'whoAmI', ['greeting' => 'hello']);
  $more['echo'][] = call($client, $encoded, 'echo', ['text' => 'Grüße ✓ 日本']);
  $more['echo'][] = call($client, $encoded, 'echo', ['text' => null]);
  $version = new stdClass;
  $version->name = '1.0';
  $version->sequence = 1;
  $pair = call($client, $encoded, 'pair', ['first' => $version, 'second' => $version]);
  $more['pair'] = array_map(function ($v) { return [$v->name, (string)$v->sequence]; }, items($pair));
  echo json_encode(['more' => $more]), "\n";
  exit(0);
}
$out['login'] = call($client, $encoded, 'login', ['user' => 'ann', 'password' => 'secret']);
$issues = call($client, $encoded, 'getIssues', ['token' => 'token-ann', 'jql' => 'project = OPS', 'max' => 2]);
$out['issues'] = array_map(function ($issue) {
  return ['key' => $issue->key, 'summary' => $issue->summary, 'votes' => $issue->votes, 'created' => $issue->created,
          'versions' => array_map(function ($v) { return $v->name; }, items($issue->versions))];
}, items($issues));
$issue = ['summary' => 'From PHP', 'votes' => 5, 'created' => '2024-05-06T07:08:09Z'];
$created = call($client, $encoded, 'createIssue', ['token' => 't', 'issue' => $issue]);
$out['created'] = ['key' => $created->key, 'summary' => $created->summary, 'votes' => $created->votes];
try {
  call($client, $encoded, 'login', ['user' => 'bob', 'password' => 'nope']);
  $out['fault'] = null;
} catch (SoapFault $fault) {
  $out['fault'] = ['code' => $fault->faultcode, 'message' => $fault->faultstring];
}
echo json_encode($out), "\n";
