// The line forms of the stack traces that runtimes print when a program
// fails: JVM (Java, Kotlin, Scala), CPython, Node/V8, Go, Ruby and .NET. One
// line at a time, by its shape alone (prefixes and a few character classes,
// no regular expression): what the multi-line assembler
// (pipeline/ingest/multiline.h) joins into events and what the trace
// identity (pipeline/stages/trace.h) reads frames and exception types from.
//
// A form says what a line can be; whether it belongs to the line before it
// is the assembler's decision, with what came before. A line that merely
// starts with blanks is kIndented, never a frame.
#pragma once

#include <cstdint>
#include <string_view>

namespace logsift::trace {

enum class Form : uint8_t {
  kOther,          // no runtime form
  kBlank,          // empty or blanks only
  kIndented,       // starts with blanks, no form of its own (code, an object's property)
  // Frames.
  kAtFrame,        // "\tat pkg.C.m(F.java:12)", "   at N.C.M() in F.cs:line 3" (JVM, .NET)
  kNodeFrame,      // "    at fn (/app/x.js:1:2)", "    at /app/x.js:1:2", "    at async Promise.all (index 1)"
  kPyFile,         // '  File "/app/x.py", line 12, in f'
  kGoFunc,         // "main.(*T).M(0x1, ...)", "panic({...})", "created by main.f"
  kGoFile,         // "\t/app/x.go:12 +0x1d"
  kRubyFrame,      // "/app/x.rb:12:in `f'", "\tfrom /app/x.rb:12:in `f'"
  // Exception and report lines.
  kException,      // "java.io.IOException: msg", "KeyError: 'u1'", "TypeError: x", "System.Exception"
  kCausedBy,       // "Caused by: T: msg" (JVM)
  kSuppressed,     // "\tSuppressed: T: msg" (JVM)
  kMore,           // "\t... 12 more", "... 3 common frames omitted", "... 6 lines matching cause stack trace ..."
  kJvmThreadHead,  // 'Exception in thread "main" T: msg'
  kPyTraceback,    // "Traceback (most recent call last):"
  kPyChain,        // "The above exception was the direct cause ...", "During handling of the above exception ..."
  kPyRepeated,     // "  [Previous line repeated 994 more times]"
  kPyGroup,        // an ExceptionGroup box: "  + Exception Group Traceback ...", "  | ...", "  +-+---- 1 ----"
  kNodeCause,      // "  [cause]: Error: x", "  [errors]: [", "Emitted 'error' event on X at:"
  kNodeFileHead,   // "/app/server.js:34", "node:events:502" (an uncaught error's first line)
  kNodeVersion,    // "Node.js v20.20.2"
  kGoPanic,        // "panic: x", "fatal error: x", "runtime: x", "\tpanic: x [recovered]"
  kGoGoroutine,    // "goroutine 7 [running]:"
  kGoElided,       // "...additional frames elided...", "exit status 2", "runtime stack:"
  kRubyUncaught,   // "/app/x.rb:12:in `f': msg (NoMethodError)"
  kDotnetInner,    // " ---> System.X: msg", "--- End of inner exception stack trace ---"
  kCaret,          // "    ^^^^^", "  ~~~~^^^^" (a runtime's pointer at the failing code)
  kDidYouMean,     // "Did you mean?  recipient" (Ruby)
  kCloseBrace,     // "  }", "}" (the end of a printed error object, Node)
};

Form classify(std::string_view line);

// Ruby's numbered frame ("5: from /app/x.rb:3:in `f'", printed outermost
// first by full_message(order: :bottom) and Ruby 2.5-2.7): the length of
// "5: from " at the start of `s` (indentation removed), or 0.
size_t ruby_numbered_from(std::string_view s);

// Blanks (spaces and tabs) at the start of `line`.
size_t indent(std::string_view line);

// A type of exception at the start of `s`: dotted identifiers whose last part
// starts with a capital and that read as one ("IOException", "KeyError",
// "charges.ChargeError", "System.InvalidOperationException"), followed by
// the end or ": ". Its length, or 0.
size_t exception_type_length(std::string_view s);

// The message after a head's exception type, or after "Caused by: T: " (""
// when none).
std::string_view exception_message(std::string_view line);

}  // namespace logsift::trace
