<?php
// PHP's SoapServer with rpc_literal.wsdl: a record with non-ASCII text and,
// for an age under 18, a null nickname (written as xsi:nil, the element being nillable).
function person($name, $age) {
  $p = new stdClass;
  $p->name = "$name ✓";
  $p->age = $age;
  $p->nickname = $age < 18 ? null : "Mx $name";
  return $p;
}
ini_set('soap.wsdl_cache_enabled', '0');
$server = new SoapServer(__DIR__ . '/rpc_literal.wsdl');
$server->addFunction('person');
$server->handle();
