/* A gSOAP server (Debian's gsoap) on 127.0.0.1 and the port given: the
 * operations interop.h declares. Built by test/soap/interop/gsoap_test.rb. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "soapH.h"
#include "EncodedService.nsmap"

static struct enc__Person *fill_people(struct soap *soap, const char *name, int count) {
  struct enc__Person *people = soap_malloc(soap, sizeof(struct enc__Person) * (count > 0 ? count : 1));
  for (int n = 0; n < count; n++) {
    char *text = soap_malloc(soap, strlen(name) + 16);
    sprintf(text, "%s %d", name, n + 1);
    people[n].name = text;
    people[n].age = n + 1;
    people[n].nickname = n % 2 ? "nick \xE2\x9C\x93" : NULL;
  }
  return people;
}

int enc__add(struct soap *soap, int a, int b, int *sum) {
  (void)soap;
  *sum = a + b;
  return SOAP_OK;
}

int enc__people(struct soap *soap, char *name, int count, struct enc__PersonArray *result) {
  if (count < 0 || count > 100) return soap_sender_fault(soap, "count out of range", NULL);
  result->__ptr = fill_people(soap, name, count);
  result->__size = count;
  return SOAP_OK;
}

int enc__refuse(struct soap *soap, char *reason, char **result) {
  (void)result;
  return soap_sender_fault(soap, reason, NULL);
}

int enc__ages(struct soap *soap, struct enc__PersonArray *people, int *total) {
  (void)soap;
  *total = 0;
  for (int n = 0; people && n < people->__size; n++) *total += people->__ptr[n].age;
  return SOAP_OK;
}

int lit__whoAmI(struct soap *soap, char *greeting, char **answer) {
  const char *user = "stranger";
  if (soap->header && soap->header->lit__AuthHeader && soap->header->lit__AuthHeader->password &&
      strcmp(soap->header->lit__AuthHeader->password, "secret") == 0)
    user = soap->header->lit__AuthHeader->user;
  *answer = soap_malloc(soap, strlen(greeting) + strlen(user) + 3);
  sprintf(*answer, "%s, %s", greeting, user);
  soap->header = NULL; /* no header in the response */
  return SOAP_OK;
}

int lit__people(struct soap *soap, char *name, int count, struct lit__peopleResponse *result) {
  if (count < 0 || count > 100) return soap_sender_fault(soap, "count out of range", NULL);
  result->person = (struct lit__Person *)fill_people(soap, name, count);
  result->__size = count;
  return SOAP_OK;
}

int main(int argc, char **argv) {
  struct soap *soap = soap_new1(SOAP_C_UTFSTRING | SOAP_XML_NIL);
  soap->bind_flags = SO_REUSEADDR;
  if (argc < 2 || !soap_valid_socket(soap_bind(soap, "127.0.0.1", atoi(argv[1]), 16))) {
    soap_print_fault(soap, stderr);
    return 1;
  }
  soap->recv_timeout = 10;
  soap->send_timeout = 10;
  for (;;) {
    if (!soap_valid_socket(soap_accept(soap))) continue;
    soap_serve(soap);
    soap_destroy(soap);
    soap_end(soap);
  }
}
