<?php
// PHP's SoapServer with header.wsdl (document/literal): a header reaches the
// method named after its element (AuthHeader), as WSDL 1.1 §3.7 names it.
class Handler {
  private $user = null;
  public function AuthHeader($auth) {
    if ($auth->password === 'secret') $this->user = $auth->user;
  }
  public function whoAmI($request) {
    return ['answer' => $request->greeting . ', ' . ($this->user === null ? 'stranger' : $this->user)];
  }
}
ini_set('soap.wsdl_cache_enabled', '0');
$server = new SoapServer(__DIR__ . '/header.wsdl');
$server->setObject(new Handler());
$server->handle();
