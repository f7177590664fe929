// gSOAP service definitions for test/soap/interop/gsoap_test.rb: soapcpp2 makes
// the stubs and a WSDL per service from this, gcc builds server.c with them.
// enc: rpc/encoded; lit: document/literal with an AuthHeader SOAP header.

//gsoap enc service name: EncodedService
//gsoap enc service style: rpc
//gsoap enc service encoding: encoded
//gsoap enc service namespace: urn:wirebind:gsoap:enc
//gsoap enc service location: http://127.0.0.1/
//gsoap enc schema namespace: urn:wirebind:gsoap:enc

//gsoap lit service name: LiteralService
//gsoap lit service style: document
//gsoap lit service encoding: literal
//gsoap lit service namespace: urn:wirebind:gsoap:lit
//gsoap lit service location: http://127.0.0.1/
//gsoap lit schema namespace: urn:wirebind:gsoap:lit
//gsoap lit schema form: qualified

// The header's type and element have different names (AuthHeaderType, AuthHeader).
struct lit__AuthHeaderType {
  char *user;
  char *password;
};
struct SOAP_ENV__Header {
  struct lit__AuthHeaderType *lit__AuthHeader;
};

struct enc__Person {
  char *name;
  int age;
  char *nickname; // NULL: xsi:nil (SOAP_XML_NIL)
};
struct enc__PersonArray {
  struct enc__Person *__ptr;
  int __size;
};

int enc__add(int a, int b, int *sum);
int enc__people(char *name, int count, struct enc__PersonArray *result);
int enc__refuse(char *reason, char **result);
// A list of records in: the sum of their ages.
int enc__ages(struct enc__PersonArray *people, int *total);

//gsoap lit service method-header-part: whoAmI lit__AuthHeader
//gsoap lit service method-input-header-part: whoAmI lit__AuthHeader
int lit__whoAmI(char *greeting, char **answer);
struct lit__Person {
  char *name;
  int age;
  char *nickname; // NULL: xsi:nil (SOAP_XML_NIL)
};
struct lit__peopleResponse {
  int __size;
  struct lit__Person *person;
};
int lit__people(char *name, int count, struct lit__peopleResponse *result);
