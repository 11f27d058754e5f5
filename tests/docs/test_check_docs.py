#!/usr/bin/python3
"""The documentation checker (check_docs.py) passes a small consistent tree and
fails, naming the problem, when the tree is broken: a link that does not
resolve or leaves the repository, an anchor that does not exist, a route the
spec or the dispatcher has and the page lacks (or the reverse), a config key
missing from the reference or a wrong default, and a message the code cannot
emit. Standard library only: /usr/bin/python3 tests/docs/test_check_docs.py
"""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_docs.py")

TREE = {
    "README.md": """\
        # tiny

        See [the docs](docs/README.md), [the routes](docs/api.md#routes) and
        [a heading with `code` and punctuation](docs/api.md#post-inferences-one-line-or-many).
        """,
    "docs/README.md": """\
        # Docs

        Who this is for: everyone.

        [API](api.md), [configuration](configuration.md#listeners),
        [troubleshooting](troubleshooting.md), [the source](../service/api/http_api.cpp).
        """,
    "docs/api.md": """\
        # API

        Who this is for: developers.

        ## Routes

        | route | what |
        | --- | --- |
        | `GET /healthz` | liveness |
        | `POST /inferences` | cluster lines |
        | `GET /subscriptions` | list |
        | `POST /subscriptions` | create |
        | `GET /subscriptions/{id}` | one |
        | `DELETE /subscriptions/{id}` | remove |

        ## POST /inferences: one line, or many

        Text.
        """,
    "docs/configuration.md": """\
        # Configuration

        Who this is for: operators.

        ## Listeners

        | key | default | what it does |
        | --- | --- | --- |
        | `http_port` | `8080` | the port |
        | `data_dir` | `"./data"` | where data lives |
        | `premask` | see below | patterns |
        | `premask[].name` | | the name |
        | `premask[].regex` | | the pattern |
        """,
    "docs/troubleshooting.md": """\
        # Troubleshooting

        Who this is for: on-call.

        | message | meaning |
        | --- | --- |
        | `no route {…}` | no such path |
        | `invalid token` / `data_dir {…} is in use{…}: stop it` | see text |
        | `accept on {…}: {…} ({…} times since the last report); backing off` | descriptors |
        """,
    "service/api/spec/openapi.json": """\
        {"openapi": "3.0.3", "paths": {
          "/healthz": {"get": {}}, "/inferences": {"post": {}},
          "/subscriptions": {"get": {}, "post": {}},
          "/subscriptions/{id}": {"get": {}, "delete": {}}}}
        """,
    "service/api/http_api.cpp": """\
        void handle_http_request(ServerContext& ctx, HttpRequest&& req, Responder respond) {
          auto only = [&](http::verb v) { return req.method() == v; };
          try {
            if (t.path == "/inferences") {
              if (only(http::verb::post)) handle_inferences(ctx, req);
            } else if (t.path == "/healthz") {
              if (only(http::verb::get)) respond(ok());
            } else if (t.path == "/subscriptions" || t.path.starts_with("/subscriptions/")) {
              respond(handle_subscriptions(ctx, req, rest));
            } else {
              respond(error_response(http::status::not_found, "no route " + t.path));
            }
          } catch (const std::exception&) {
          }
        }
        """,
    "service/api/subscriptions.cpp": """\
        HttpResponse handle_subscriptions(ServerContext& ctx, const HttpRequest& req, std::string_view rest) {
          if (rest.empty()) {
            if (req.method() == http::verb::get) return list();
            if (req.method() != http::verb::post) return error("use GET or POST on /subscriptions");
            return create();
          }
          if (req.method() == http::verb::get) return one();
          if (req.method() == http::verb::delete_) return remove();
          return error("use GET or DELETE on /subscriptions/{id}");
        }
        """,
    "service/api/auth.cpp": """\
        // "a message only in a comment"
        std::optional<std::string> check() { return std::string("invalid token"); }
        void lock(const std::string& data_dir) {
          throw std::runtime_error("data_dir " + data_dir + " is in use" +
                                   (pid.empty() ? "" : " (pid " + pid + ")") + ": stop it");
        }
        void log() {
          spdlog::error("accept on {}: {} ({} times since the last report); "
                        "backing off", a, b, c);
        }
        """,
    "config/logsift.jsonc": """\
        // defaults
        {
          "http_port": 8080,      // the port
          "data_dir": "./data",   // where data lives (not a // comment inside "a string")
          "premask": [{"name": "n", "regex": "[0-9]+"}]
        }
        """,
    "config/config.cpp": """\
        void set_premask(Config& c, const json& v) {
          for (auto it = e.begin(); it != e.end(); ++it) {
            if (it.key() != "name" && it.key() != "regex")
              throw ConfigError(where + "." + it.key(), "unknown field");
          }
        }
        const std::vector<KeyDesc>& key_table() {
          static const std::vector<KeyDesc> table = {
              LS_INT(http_port), LS_STR(data_dir),
              KeyDesc{"premask", set_premask, get_premask},
          };
          return table;
        }
        """,
}


class CheckDocsTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="check_docs_")
        for rel, text in TREE.items():
            self.write(rel, textwrap.dedent(text))

    def tearDown(self):
        shutil.rmtree(self.root)

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def append(self, rel, text):
        with open(os.path.join(self.root, rel), "a", encoding="utf-8") as f:
            f.write(textwrap.dedent(text))

    def replace(self, rel, old, new):
        path = os.path.join(self.root, rel)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.assertIn(old, text)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new))

    def run_check(self, check):
        p = subprocess.run([sys.executable, CHECKER, "--root", self.root, check],
                           capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout + p.stderr

    def assert_passes(self, check):
        rc, out = self.run_check(check)
        self.assertEqual(rc, 0, out)

    def assert_fails(self, check, *needles):
        rc, out = self.run_check(check)
        self.assertEqual(rc, 1, out)
        for n in needles:
            self.assertIn(n, out)

    # --- the good tree --------------------------------------------------

    def test_the_consistent_tree_passes_every_check(self):
        for check in ("links", "api", "config", "troubleshooting", "all"):
            with self.subTest(check=check):
                self.assert_passes(check)

    # --- links ---------------------------------------------------------

    def test_a_broken_link_fails(self):
        self.append("docs/README.md", "\nSee [nothing](missing.md).\n")
        self.assert_fails("links", "docs/README.md:8", "missing.md", "does not exist")

    def test_a_broken_anchor_fails(self):
        self.append("README.md", "\n[gone](docs/api.md#no-such-heading)\n")
        self.assert_fails("links", "README.md", "#no-such-heading")

    def test_a_link_leaving_the_repository_fails(self):
        self.append("README.md", "\n[design](../shared/DESIGN.md) and [up](../../etc/passwd)\n")
        self.assert_fails("links", "../shared", "leaves the repository")

    def test_links_in_code_are_not_links(self):
        self.append("docs/README.md", "\n`[x](missing.md)` and\n\n```\n[y](missing.md)\n```\n")
        self.assert_passes("links")

    def test_a_page_that_does_not_say_whom_it_is_for_fails(self):
        self.replace("docs/api.md", "Who this is for: developers.", "For developers.")
        self.assert_fails("links", "docs/api.md", "Who this is for:")

    # --- api -----------------------------------------------------------

    def test_a_route_of_the_spec_missing_from_the_page_fails(self):
        self.replace("service/api/spec/openapi.json", '"/healthz": {"get": {}}',
                     '"/healthz": {"get": {}}, "/metrics": {"get": {}}')
        self.assert_fails("api", "GET /metrics", "missing from the route table")

    def test_a_route_the_spec_lacks_fails(self):
        self.replace("docs/api.md", "| `GET /healthz` | liveness |",
                     "| `GET /healthz` | liveness |\n| `GET /readyz` | readiness |")
        self.assert_fails("api", "GET /readyz", "not in service/api/spec/openapi.json")

    def test_a_dispatcher_route_the_page_does_not_name_fails(self):
        self.replace("service/api/http_api.cpp", '} else if (t.path == "/healthz") {',
                     '} else if (t.path == "/metrics") {\n'
                     '      if (only(http::verb::get)) respond(metrics());\n'
                     '    } else if (t.path == "/healthz") {')
        self.assert_fails("api", "`GET /metrics`", "http_api.cpp:", "not named on the page")

    def test_a_method_the_handler_answers_is_read_from_the_handler(self):
        self.replace("docs/api.md", "| `DELETE /subscriptions/{id}` | remove |\n", "")
        self.replace("service/api/spec/openapi.json", '"get": {}, "delete": {}', '"get": {}')
        self.assert_fails("api", "`DELETE /subscriptions/{id}`")

    # --- config --------------------------------------------------------

    def test_a_key_missing_from_the_reference_fails(self):
        self.replace("config/logsift.jsonc", '"http_port": 8080,', '"http_port": 8080,\n  "tcp_port": 5170,  // tcp')
        self.replace("config/config.cpp", "LS_INT(http_port),", "LS_INT(http_port), LS_INT(tcp_port),")
        self.assert_fails("config", "'tcp_port' is not in the reference")

    def test_a_key_the_parser_does_not_accept_fails(self):
        self.replace("config/logsift.jsonc", '"http_port": 8080,', '"http_port": 8080,\n  "old_key": 1,')
        self.assert_fails("config", "'old_key'", "config.cpp does not accept it")

    def test_a_key_neither_has_fails(self):
        self.append("docs/configuration.md", "| `made_up_key` | `1` | nothing |\n")
        self.assert_fails("config", "made_up_key", "neither in config/logsift.jsonc nor accepted")

    def test_a_wrong_default_fails(self):
        self.replace("docs/configuration.md", "| `http_port` | `8080` |", "| `http_port` | `9090` |")
        self.assert_fails("config", "'http_port'", "`8080`")

    def test_a_premask_field_missing_from_the_reference_fails(self):
        self.replace("config/config.cpp", 'it.key() != "regex"', 'it.key() != "regex" && it.key() != "boundary"')
        self.assert_fails("config", "premask[].boundary")

    # --- troubleshooting -----------------------------------------------

    def test_an_unknown_message_fails(self):
        self.append("docs/troubleshooting.md", "| `the flux capacitor is out of {…}` | time |\n")
        self.assert_fails("troubleshooting", "docs/troubleshooting.md:10", "flux capacitor")

    def test_a_message_only_in_a_comment_fails(self):
        self.append("docs/troubleshooting.md", "| `a message only in a comment` | no |\n")
        self.assert_fails("troubleshooting", "a message only in a comment")

    def test_fragments_out_of_order_or_across_statements_fail(self):
        self.append("docs/troubleshooting.md", "| `{…}: stop it{…} is in use` | no |\n"
                                               "| `invalid token: stop it` | no |\n")
        rc, out = self.run_check("troubleshooting")
        self.assertEqual(rc, 1, out)
        self.assertIn("stop it{…} is in use", out)
        self.assertIn("invalid token: stop it", out)

    def test_a_literal_message_must_be_a_whole_literal(self):
        self.append("docs/troubleshooting.md", "| `valid token` | a part of `invalid token` |\n")
        self.assert_fails("troubleshooting", "`valid token`")


if __name__ == "__main__":
    unittest.main()
