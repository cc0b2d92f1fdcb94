// FUZZ_CHECK: the property a fuzz target asserts. A violation prints what
// broke and aborts, which libFuzzer reports as a crash with the input saved.
#ifndef MXLA_TESTS_FUZZ_FUZZ_CHECK_H_
#define MXLA_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string>

#define FUZZ_CHECK(condition, message)                                    \
  do {                                                                    \
    if (!(condition)) {                                                   \
      std::fprintf(stderr, "FUZZ_CHECK failed at %s:%d: %s\n%s\n",        \
                   __FILE__, __LINE__, #condition,                        \
                   std::string(message).c_str());                         \
      std::abort();                                                       \
    }                                                                     \
  } while (false)

#endif  // MXLA_TESTS_FUZZ_FUZZ_CHECK_H_
