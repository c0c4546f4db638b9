/* Temporary: commands not built yet. */
#include "cli.h"
