// An error's identity (pipeline/stages/trace.h): what must not change an
// event's id (values, line numbers, recursion depth, generated names,
// deployment paths, thread pools, how many suppressed or grouped errors) and
// what must (another exception type, another frame); then through the
// pipeline: every labelled fault of models/events keeps one id, whole or
// line by line.
#include "pipeline/stages/trace.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config/config.h"
#include "pipeline/eval/csv.h"
#include "pipeline/ingest/multiline.h"
#include "pipeline/pipeline.h"
#include "pipeline/core/params.h"
#include "pipeline/stages/tokenizer.h"

namespace logsift {
namespace {

const Premasker& premask() {
  static const Premasker p(Config::defaults().premask);
  return p;
}

TraceIdentity id_of(const std::string& text) { return trace_identity(text, premask()); }

const std::string kJava =
    "Export of batch 7305 failed\n"
    "java.io.IOException: Export stream for batch 7305 truncated at byte 56420\n"
    "\tat com.example.export.ExportJob$BatchWriter.write(ExportJob.java:62)\n"
    "\tat com.example.export.ExportJob.export(ExportJob.java:45)\n"
    "\tat com.example.export.ExportJob$1.run(ExportJob.java:32)\n"
    "\tat com.example.app.App.lambda$run$0(App.java:69)\n"
    "\tat java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1136)\n"
    "\tat java.base/java.lang.Thread.run(Thread.java:840)\n"
    "\tSuppressed: java.lang.IllegalStateException: Batch 7305 has 780 unflushed rows in /opt/x/7305-lines.csv\n"
    "\t\tat com.example.export.ExportJob$BatchWriter.close(ExportJob.java:69)\n"
    "\t\t... 8 more";

TEST(TraceIdentity, ValuesLineNumbersAndGeneratedNamesDoNotCount) {
  const auto a = id_of(kJava);
  ASSERT_TRUE(a.trace);
  EXPECT_FALSE(a.head_in_trace);
  // Other values, other line numbers, another anonymous class number and
  // lambda index, a "... N more" count, two suppressed errors instead of one,
  // and a thread pool of another machine (ForkJoinPool frames).
  std::string b = kJava;
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"7305", "118"}, {"56420", "9"}, {"ExportJob.java:62", "ExportJob.java:64"}, {"$1.run", "$2.run"},
           {"lambda$run$0", "lambda$run$3"}, {"... 8 more", "... 11 more"},
           {"ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1136)", "ForkJoinWorkerThread.run(ForkJoinWorkerThread.java:165)"}}) {
    for (size_t at = b.find(from); at != std::string::npos; at = b.find(from, at + to.size())) b.replace(at, from.size(), to);
  }
  b += "\n\tSuppressed: java.lang.IllegalStateException: Batch 9 has 1 unflushed rows in /srv/y/9-orders.csv"
       "\n\t\tat com.example.export.ExportJob$BatchWriter.close(ExportJob.java:69)";
  EXPECT_EQ(id_of(b).fingerprint, a.fingerprint);
}

TEST(TraceIdentity, RecursionDepthAndReflectionDoNotCount) {
  auto java = [](int depth, bool generated) {
    std::string t = "Failed\njava.lang.StackOverflowError\n";
    for (int i = 0; i < depth; ++i) t += "\tat com.example.Tree.walk(Tree.java:12)\n";
    t += generated ? "\tat jdk.internal.reflect.GeneratedMethodAccessor412.invoke(Unknown Source)\n"
                   : "\tat jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)\n"
                     "\tat jdk.internal.reflect.NativeMethodAccessorImpl.invoke(NativeMethodAccessorImpl.java:77)\n";
    t += "\tat java.base/java.lang.reflect.Method.invoke(Method.java:568)\n\tat com.example.App.main(App.java:3)";
    return t;
  };
  EXPECT_EQ(id_of(java(3, false)).fingerprint, id_of(java(1024, true)).fingerprint);
}

TEST(TraceIdentity, AnotherTypeOrAnotherFrameIsAnotherFault) {
  const auto a = id_of(kJava);
  std::string other_type = kJava;
  other_type.replace(other_type.find("java.io.IOException"), 19, "java.io.EOFException");
  EXPECT_NE(id_of(other_type).fingerprint, a.fingerprint);
  std::string other_frame = kJava;
  other_frame.replace(other_frame.find("ExportJob.export("), 17, "ExportJob.import(");
  EXPECT_NE(id_of(other_frame).fingerprint, a.fingerprint);
  // Further from the throw, another caller is the same fault reached by
  // another path (a parallel stream's work on the caller's thread or a
  // pool worker's): it does not count.
  std::string other_caller = kJava;
  other_caller.replace(other_caller.find("App.lambda$run$0("), 17, "App.lambda$poll$3(");
  other_caller.replace(other_caller.find("ExportJob$1.run("), 16, "ExportJob$1.call(");
  EXPECT_EQ(id_of(other_caller).fingerprint, a.fingerprint);
}

TEST(TraceIdentity, DeploymentPathsDoNotCountNorDoGoAddresses) {
  auto go = [](const std::string& root, const std::string& g, const std::string& addr) {
    return "panic: runtime error: index out of range [8] with length 2\n\ngoroutine " + g + " [running]:\n"
           "example.com/gocache/store.(*Ring).Owner(" + addr + ")\n\t" + root + "/gocache/store/ring.go:65 +0x1d\n"
           "main.(*Cache).lookup(0x0?)\n\t" + root + "/gocache/main.go:161 +0xbc\n";
  };
  const auto a = id_of(go("/srv/app-1.4.2", "20", "0xc0000100d8"));
  ASSERT_TRUE(a.trace);
  EXPECT_TRUE(a.head_in_trace);
  EXPECT_EQ(id_of(go("/opt/releases/20261128", "7", "0xc000aa0000")).fingerprint, a.fingerprint);
  // The panic's values go; its words stay.
  std::string other = go("/srv/app-1.4.2", "20", "0x1");
  other.replace(other.find("[8] with length 2"), 17, "[3] with length 1");
  EXPECT_EQ(id_of(other).fingerprint, a.fingerprint);
}

TEST(TraceIdentity, TheSummaryShowsTheExceptionLinesWithoutTheirValues) {
  const auto a = id_of(kJava);
  EXPECT_EQ(a.summary,
            "\njava.io.IOException: Export stream for batch <*> truncated at byte <*>"
            "\nSuppressed: java.lang.IllegalStateException: Batch <*> has <*> unflushed rows in <*>");
  const auto py = id_of("Traceback (most recent call last):\n  File \"/srv/app/x.py\", line 3, in f\n    d[k]\n"
                        "KeyError: 'u263'");
  EXPECT_TRUE(py.head_in_trace);
  EXPECT_EQ(py.summary, "Traceback (most recent call last):\nKeyError: <*>");
}

TEST(TraceIdentity, LinesThatOnlyLookLikeExceptionsAreNoTrace) {
  EXPECT_FALSE(id_of("Warning: disk almost full\nsecond line of the notice").trace);
  EXPECT_FALSE(id_of("User alice logged in").trace);
}

// Every labelled event of models/events through a pipeline, line by line
// (assembled) and whole: one id per fault, no fault shares another's id.
void expect_one_id_per_fault(const std::string& set, const std::string& system) {
  const auto table = read_csv_file(std::string(LOGSIFT_SOURCE_DIR) + "/models/events/" + set + "/" + system +
                                         "/" + system + ".log_structured.csv");
  const int content = table.column("Content"), event = table.column("Event"), label = table.column("EventId");
  // The events of two lines or more, whole and by their lines.
  std::vector<std::string> wholes, labels;
  std::vector<std::vector<std::string>> lines;
  for (size_t i = 0; i < table.rows.size();) {
    size_t n = 1;
    while (i + n < table.rows.size() && table.rows[i + n][event] == table.rows[i][event]) ++n;
    if (n > 1) {
      std::string w;
      std::vector<std::string> ls;
      for (size_t k = i; k < i + n; ++k) {
        w += (k > i ? "\n" : "") + table.rows[k][content];
        ls.push_back(table.rows[k][content]);
      }
      wholes.push_back(w);
      lines.push_back(ls);
      labels.push_back(table.rows[i][label]);
    }
    i += n;
  }
  ASSERT_GT(wholes.size(), 50u);
  const Config c = Config::defaults();
  Pipeline p(c, nullptr);
  auto whole_batch = std::make_unique<Batch>();
  for (const auto& w : wholes) {
    Record& r = whole_batch->records.emplace_back();
    r.text = whole_batch->keep(w);
    normalize_event_text(r, c, *whole_batch);
  }
  const Results whole = p.run(std::move(whole_batch));
  std::map<std::string, std::set<uint64_t>> ids_of_fault;
  std::map<uint64_t, std::set<std::string>> faults_of_id;
  for (size_t e = 0; e < wholes.size(); ++e) {
    ASSERT_TRUE(whole[e].ok()) << whole[e].error;
    ids_of_fault[labels[e]].insert(whole[e].cluster_id);
    faults_of_id[whole[e].cluster_id].insert(labels[e]);
    // The same event line by line: the same id, on each of its lines.
    auto b = std::make_unique<Batch>();
    EventAssembler a(c);
    for (const auto& l : lines[e]) a.add_line(b->keep(l), 0, *b);
    a.flush(*b);
    const Results by_line = p.run(std::move(b));
    // One record; or, for a Go crash in which two goroutines panicked, one
    // per report (multiline_test.cpp says why), each with the fault's id.
    ASSERT_GE(by_line.size(), 1u);
    size_t answered = 0;
    for (size_t k = 0; k < by_line.size(); ++k) {
      if (k > 0) EXPECT_EQ(system, "GoCache") << "event " << e << " split: " << lines[e][0];
      EXPECT_EQ(by_line[k].cluster_id, whole[e].cluster_id) << system << " event " << e << " part " << k;
      answered += by_line[k].lines;
    }
    EXPECT_EQ(answered, lines[e].size());
  }
  for (const auto& [fault, ids] : ids_of_fault) EXPECT_EQ(ids.size(), 1u) << system << " " << fault;
  for (const auto& [id, faults] : faults_of_id) EXPECT_EQ(faults.size(), 1u) << system << " id " << id;
}

TEST(EventIdentity, OneIdPerFaultOfEveryRuntimeWholeOrLineByLine) {
  for (const char* s : {"JavaOrders", "PythonBilling", "NodeGateway", "GoCache", "RubyJobs"}) {
    expect_one_id_per_fault("dev", s);
    expect_one_id_per_fault("test", s);
    expect_one_id_per_fault("holdout", s);
  }
}

TEST(EventIdentity, ParamsHoldTheHeadsAndTheExceptionLinesValues) {
  const Config c = Config::defaults();
  Pipeline p(c, nullptr);
  auto b = std::make_unique<Batch>();
  Record& r = b->records.emplace_back();
  r.text = b->keep(kJava);
  const Results out = p.run(std::move(b));
  ASSERT_TRUE(out[0].ok());
  EXPECT_NE(out[0].template_text.find("\njava.io.IOException: Export stream for batch <*>"), std::string_view::npos)
      << out[0].template_text;
  std::vector<std::string_view> params;
  ASSERT_TRUE(template_params(out[0].template_text, out[0].text, &params)) << out[0].template_text;
  EXPECT_NE(std::find(params.begin(), params.end(), "56420"), params.end());
  // No value swallows the frames after its line.
  for (const auto& v : params) EXPECT_EQ(v.find('\n'), std::string_view::npos) << v;
  // A template's last value on the exception line: that line's value alone.
  ASSERT_TRUE(template_params("Bad quantity on line <*>\njava.lang.NumberFormatException: For input string: <*>",
                              "Bad quantity on line 0\njava.lang.NumberFormatException: For input string: \"x0\"\n"
                              "\tat java.base/java.lang.Integer.parseInt(Integer.java:668)\n\tat Orders.main(Orders.java:21)",
                              &params));
  EXPECT_EQ(params, (std::vector<std::string_view>{"0", "\"x0\""}));
}

}  // namespace
}  // namespace logsift
