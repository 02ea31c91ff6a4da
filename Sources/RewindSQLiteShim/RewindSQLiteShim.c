#include "RewindSQLiteShim.h"

int rewind_sqlite_no_checkpoint_on_close(sqlite3 *db, int skip) {
  int setting = -1;
  if (sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, skip, &setting) != SQLITE_OK) return -1;
  return setting;
}
