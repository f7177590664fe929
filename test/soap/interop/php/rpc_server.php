<?php
// PHP's SoapServer without a WSDL (rpc/encoded), SOAP 1.1 under /soap11 and
// SOAP 1.2 under /soap12: what test/soap/interop/php_test.rb calls.
function add($a, $b) { return $a + $b; }
function hello($name) { return "Hello $name"; }
function person($name) { $p = new stdClass; $p->name = $name; $p->age = 42; return $p; }
// One object twice: PHP writes id on the first copy, href on the second.
function twice($name) { $p = person($name); return [$p, $p]; }
// Lists in: a sum, and the start tag the client wrote for the list (to check its
// SOAP 1.1 or 1.2 encoding array form); a list out.
function total($list) { return array_sum($list); }
function listTag() { preg_match('/<list\b[^>]*>/', file_get_contents('php://input'), $m); return $m[0] ?? ''; }
function words($text) { return explode(' ', $text); }
$version = strpos($_SERVER['REQUEST_URI'], 'soap12') !== false ? SOAP_1_2 : SOAP_1_1;
$server = new SoapServer(null, ['uri' => 'urn:wirebind:php', 'soap_version' => $version]);
$server->addFunction(['add', 'hello', 'person', 'twice', 'total', 'listTag', 'words']);
$server->handle();
