#!/usr/bin/python3
"""test_engine.py: the live-test engine's own rules, without a kernel: how a
directive file is read, and which changes of the tracing state are a test's."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engine  # noqa: E402


def parse(text):
    with tempfile.NamedTemporaryFile("w", suffix=".test", delete=False) as f:
        f.write(text)
    try:
        return engine.parse(f.name)
    finally:
        os.unlink(f.name)


class Parse(unittest.TestCase):
    def test_blocks(self):
        t = parse("# a comment\n"
                  "NAME one\n"
                  "FILE x.lua\n"
                  "    local a = 1\n"
                  "\n"
                  "      print(a)\n"
                  "RUN {{LTAP}} {{WORK}}/x.lua\n"
                  "EXPECT\n"
                  "    1\n"
                  "        indented\n"
                  "\n"
                  "NAME two\n"
                  "USES one\n"
                  "RUN true\n"
                  "EXIT !0\n")
        self.assertEqual([x.name for x in t], ["one", "two"])
        self.assertEqual(t[0].all("FILE"), [("x.lua", "local a = 1\n\n  print(a)\n")])
        self.assertEqual(t[0].all("EXPECT"), ["1\n    indented"])
        self.assertEqual(t[1].all("USES"), ["one"])

    def check_error(self, text, words):
        with self.assertRaises(engine.FileError) as e:
            parse(text)
        self.assertIn(words, str(e.exception))

    def test_errors(self):
        self.check_error("NAME a\nRUN x\nEXPCT 1\n", "unknown directive 'EXPCT'")
        self.check_error("NAME a\nRUN x\nEXIT 0\n  stray\n", "no directive's block")
        self.check_error("NAME a\n\tRUN x\n", "a tab")
        self.check_error("NAME a\nRUN x\nEXIT 0\nNAME a\nRUN y\nEXIT 0\n", "a second test named 'a'")
        self.check_error("NAME a\nEXIT 0\n", "has no RUN")
        self.check_error("NAME a\nRUN x\n", "checks nothing")
        self.check_error("NAME a\nUSES b\nRUN x\nEXIT 0\n", "USES b: no test of that name before")
        self.check_error("NAME a\nREQUIRES kprobe\nRUN x\nEXIT 0\n", "unknown requirement 'kprobe'")
        self.check_error("NAME a\nRUN x\nEXIT one\n", "EXIT 'one'")
        self.check_error("NAME a\nRUN x\nEXPECT_REGEX (\n", "bad regex")
        self.check_error("NAME a\nRUN\n    x\n    y\nSIGNAL INT\nEXIT 0\n", "RUN is one command")
        self.check_error("RUN x\n", "before the first NAME")
        self.check_error("NAME a\nRUN x\nRUN y\nEXIT 0\n", "a second RUN")


class Budget(unittest.TestCase):
    def test_ctest_timeout_covers_the_lock_and_every_test(self):
        t = parse("NAME a\nTIMEOUT 10\nRUN x\nEXIT 0\nNAME b\nRUN y\nEXIT 0\n")
        saved = os.environ.pop("LTAP_TEST_TIMEOUT", None)
        try:
            self.assertEqual(engine.file_budget(t), engine.LOCK_WAIT + 10 + engine.DEFAULT_TIMEOUT +
                             2 * engine.TEST_SLACK + 30)
        finally:
            if saved is not None:
                os.environ["LTAP_TEST_TIMEOUT"] = saved


class StateDiff(unittest.TestCase):
    """ltap names what it makes after its pid; the comparison keeps what this
    test's ltaps (ours) made and everything ltap does not name"""

    def setUp(self):
        self.alive = set()
        self.saved = engine.ltap_alive
        engine.ltap_alive = lambda pid: pid in self.alive

    def tearDown(self):
        engine.ltap_alive = self.saved

    def test_same(self):
        s = ["instance foo", "set_event: ", "tracing_on: 1"]
        self.assertEqual(engine.state_diff(s, list(s), {10}), ([], []))

    def test_ours_left_behind(self):
        problems, _ = engine.state_diff([], ["instance ltap-10"], {10})
        self.assertEqual(len(problems), 1)
        self.assertIn("+instance ltap-10", problems[0])

    def test_ours_uprobe_left_behind(self):
        problems, _ = engine.state_diff([], ["uprobe_events: p:ltap_10/p_f_1 /bin/x:0x100"], {10})
        self.assertIn("ltap_10/p_f_1", problems[0])

    def test_not_ltaps_changed(self):
        problems, _ = engine.state_diff(["set_event: "], ["set_event: sched:sched_switch"], set())
        self.assertIn("+set_event: sched:sched_switch", problems[0])

    def test_another_running_ltap_comes_and_goes(self):
        self.alive = {20, 21}
        problems, notes = engine.state_diff(["instance ltap-20"], ["instance ltap-21",
                                            "cgroup /sys/fs/cgroup/unified/ltap-21-22"], {10})
        self.assertEqual(problems, [])
        self.assertEqual(len(notes), 3)

    def test_a_dead_ltaps_leftover_reaped_meanwhile(self):
        # live_cli, live_timers: another checkout's stale instance, there
        # before the test, removed by the test's ltap at its start
        problems, notes = engine.state_diff(["instance ltap-30", "tracing_on: 1"], ["tracing_on: 1"], {10})
        self.assertEqual(problems, [])
        self.assertIn("gone during the test, not ours", notes[0])

    def test_a_dead_ltaps_leftover_that_stays(self):
        problems, _ = engine.state_diff(["instance ltap-30"], ["instance ltap-30"], {10})
        self.assertEqual(problems, [])

    def test_a_new_leftover_of_no_ltap_of_ours(self):
        problems, _ = engine.state_diff([], ["instance ltap-999999999"], {10})
        self.assertEqual(len(problems), 1)
        self.assertIn("no ltap of this test had pid 999999999", problems[0])

    def test_ours_still_running(self):
        self.alive = {10}
        problems, _ = engine.state_diff([], ["instance ltap-10"], {10})
        self.assertIn("+instance ltap-10", problems[0])


if __name__ == "__main__":
    unittest.main(verbosity=2)
