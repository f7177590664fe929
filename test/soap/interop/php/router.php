<?php
// php -S router: /doc is the WSDL service with a header, /pair the one whose
// response repeats a value, /rpc-literal the rpc/literal one, anything else rpc_server.php.
if (strpos($_SERVER['REQUEST_URI'], '/doc') === 0) {
  require __DIR__ . '/header_server.php';
} elseif (strpos($_SERVER['REQUEST_URI'], '/rpc-literal') === 0) {
  require __DIR__ . '/rpc_literal_server.php';
} elseif (strpos($_SERVER['REQUEST_URI'], '/pair') === 0) {
  require __DIR__ . '/pair_server.php';
} else {
  require __DIR__ . '/rpc_server.php';
}
