<?php
// PHP's SoapServer in WSDL mode (php-soap) handling one request read from a
// file: prints what its pay operation received, as JSON.
// php php_pay_server.php WSDL REQUEST
class Pay {
  function pay($payment) {
    fwrite(STDOUT, json_encode($payment) . "\n");
    return $payment;
  }
}
$server = new SoapServer($argv[1], ['cache_wsdl' => WSDL_CACHE_NONE]);
$server->setClass('Pay');
ob_start(); // the SOAP response: not what is checked
$server->handle(file_get_contents($argv[2]));
ob_end_clean();
