// The SQLite helper shared by the catalog and the alert outbox.
#include "pipeline/store/sqlite.h"

#include <filesystem>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace logsift::sqlite {
namespace {

class SqliteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("logsift-sqlite-" + std::to_string(::getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    db_ = std::make_unique<Db>((dir_ / "t.sqlite").string(), "test store");
    db_->exec("PRAGMA journal_mode=WAL; CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  int64_t rows() {
    Stmt q(*db_, "SELECT count(*) FROM t");
    q.step();
    return q.col_int(0);
  }
  std::filesystem::path dir_;
  std::unique_ptr<Db> db_;
};

TEST_F(SqliteTest, TransactionRollsBackUnlessCommitted) {
  {
    Transaction tx(*db_);
    Stmt(*db_, "INSERT INTO t(k, v) VALUES(1, 'a')").step();
    // no commit: an exception in the middle of a multi-statement change
  }
  EXPECT_EQ(rows(), 0);
  {
    Transaction tx(*db_);
    Stmt(*db_, "INSERT INTO t(k, v) VALUES(1, 'a')").step();
    tx.commit();
  }
  EXPECT_EQ(rows(), 1);
}

TEST_F(SqliteTest, ErrorsNameTheOwnerAndLeaveNoTransactionOpen) {
  auto err = test::error_of([&] {
    Transaction tx(*db_);
    Stmt(*db_, "INSERT INTO t(k, v) VALUES(2, 'b')").step();
    Stmt(*db_, "INSERT INTO t(k, v) VALUES(2, 'dup')").step();  // constraint violation throws
    tx.commit();
  });
  EXPECT_EQ(err.rfind("test store: ", 0), 0u) << err;
  EXPECT_EQ(rows(), 0);  // the first insert was rolled back with the failed transaction
  Transaction again(*db_);  // and a new transaction can begin
  again.commit();
}

TEST_F(SqliteTest, PreparedStatementIsReusedAfterReset) {
  Stmt ins(*db_, "INSERT INTO t(k, v) VALUES(?1, ?2)", /*persistent=*/true);
  for (int64_t k = 0; k < 5; ++k) {
    ins.reset();
    ins.bind(1, k).bind(2, std::string_view("v") );
    EXPECT_FALSE(ins.step());
  }
  EXPECT_EQ(rows(), 5);
  Stmt q(*db_, "SELECT v FROM t WHERE k = ?1");
  q.bind(1, int64_t{3});
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.col_text(0), "v");
  EXPECT_FALSE(q.col_null(0));
}

}  // namespace
}  // namespace logsift::sqlite
