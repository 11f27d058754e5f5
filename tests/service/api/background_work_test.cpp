// BackgroundWork: one job at a time off the io threads (service/api/background_work.h).
#include "service/api/background_work.h"
#include "tests/test_util.h"

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

namespace logsift {
namespace {

TEST(BackgroundWork, OneJobAtATimeThenTheNext) {
  BackgroundWork work;
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::promise<std::thread::id> first_ran;
  std::promise<bool> free_when_answered;
  ASSERT_TRUE(work.try_start([&]() -> BackgroundWork::Then {
    first_ran.set_value(std::this_thread::get_id());
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return release; });
    // The answer runs once the slot is free: a client asking again at once is taken.
    return [&] { free_when_answered.set_value(!work.busy()); };
  }));
  auto ran = first_ran.get_future();
  ASSERT_EQ(ran.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_NE(ran.get(), std::this_thread::get_id());  // on its own thread
  EXPECT_TRUE(work.busy());
  bool second_ran = false;
  EXPECT_FALSE(work.try_start([&]() -> BackgroundWork::Then {  // refused while the first runs
    second_ran = true;
    return {};
  }));
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  auto answered = free_when_answered.get_future();
  ASSERT_EQ(answered.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(answered.get());
  work.wait();
  EXPECT_FALSE(work.busy());
  EXPECT_FALSE(second_ran);
  std::promise<int> third;
  ASSERT_TRUE(work.try_start([&]() -> BackgroundWork::Then {
    third.set_value(3);
    return {};
  }));
  auto f = third.get_future();
  ASSERT_EQ(f.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(f.get(), 3);
}

TEST(BackgroundWork, AThrowingJobFreesTheSlotAndTheDestructorJoins) {
  std::promise<void> done;
  {
    BackgroundWork work;
    ASSERT_TRUE(work.try_start([]() -> BackgroundWork::Then { throw std::runtime_error("job failed"); }));
    work.wait();
    EXPECT_FALSE(work.busy());
    ASSERT_TRUE(work.try_start([&]() -> BackgroundWork::Then {
      // Still running when the destructor starts: that it waits is the point.
      logsift::test::let_time_pass(std::chrono::milliseconds(50));
      return [&] { done.set_value(); };
    }));
  }  // joins the second job
  EXPECT_EQ(done.get_future().wait_for(std::chrono::seconds(0)), std::future_status::ready);
}

}  // namespace
}  // namespace logsift
