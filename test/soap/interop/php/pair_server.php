<?php
// PHP's SoapServer with pair.wsdl (document/literal): both parts of the
// response are one object, which PHP writes once with an id and then as href.
class PairHandler {
  public function pair($request) {
    $person = new stdClass;
    $person->name = $request->name;
    $person->age = 42;
    return ['first' => $person, 'second' => $person];
  }
}
ini_set('soap.wsdl_cache_enabled', '0');
$server = new SoapServer(__DIR__ . '/pair.wsdl');
$server->setObject(new PairHandler());
$server->handle();
