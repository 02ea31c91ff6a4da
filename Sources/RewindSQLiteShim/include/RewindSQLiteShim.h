#ifndef REWIND_SQLITE_SHIM_H
#define REWIND_SQLITE_SHIM_H

#include <sqlite3.h>

/// Sets whether closing `db` skips the checkpoint SQLite tries when a connection to a WAL
/// file closes (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE): 1 skips it, 0 restores it, -1 leaves it.
/// Returns the setting afterwards (0 or 1), or -1 if SQLite refused.
///
/// sqlite3_db_config is variadic, which Swift cannot call; GRDB's own shim wraps only the
/// options it uses.
int rewind_sqlite_no_checkpoint_on_close(sqlite3 *db, int skip);

#endif
