// status.h - errors as values for the runtime: the public spectral/status.h.
#pragma once

#include "spectral/status.h"
