<?php
// PHP's SoapClient without a WSDL (rpc/encoded) calling a wirebind service:
// php encoded_client.php URL VERSION (1.1 or 1.2). Prints one JSON object with
// what each call returned and the start tag of the list in the service's
// response (to check its SOAP 1.1 or 1.2 encoding array form).
$version = ($argv[2] ?? '1.1') === '1.2' ? SOAP_1_2 : SOAP_1_1;
$client = new SoapClient(null, ['location' => $argv[1], 'uri' => 'urn:wirebind:php', 'soap_version' => $version,
                                'trace' => true, 'exceptions' => true, 'connection_timeout' => 10]);
$out = [];
$out['total'] = $client->__soapCall('total', [new SoapParam([1, 2, 3, 40], 'list')]);
$out['words'] = $client->__soapCall('words', [new SoapParam('ann zoë ✓', 'text')]);
preg_match('/<wordsReturn\b[^>]*>/', $client->__getLastResponse(), $m);
$out['wordsTag'] = $m[0] ?? '';
echo json_encode($out), "\n";
