#include "tests/testlib/status_matchers.h"
