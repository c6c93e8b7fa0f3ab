/* test_toml.c: the TOML reader (src/lib/acquire/toml.c) on texts built here, each feature to its exact
 * tree and each error TOML requires to its line; inputs built to be slow or deep; and, given the
 * fixtures directory, the real lock files in fixtures/locks. Prints "N passed, M failed".
 * `test_toml --dump FILE...` prints each file's tree instead (for tests/toml_oracle.py): a line of
 * JSON, with inf, -inf and nan as the strings "__inf__", "__-inf__", "__nan__", or "error: why"
 * (then exit status 1). Usage: test_toml [FIXTURES] | test_toml --dump FILE... */
#include "../src/lib/acquire/acquire.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

static bool parses_n(const char *toml, size_t len, const char *want)
{
    char why[256];
    cJSON *t = smc_toml_parse(toml, len, why, sizeof why);
    if (!t) {
        fprintf(stderr, "%.200s\n  refused: %s\n  want %s\n", toml, why, want);
        return false;
    }
    char *got = cJSON_PrintUnformatted(t);
    bool ok = got && strcmp(got, want) == 0;
    if (!ok) fprintf(stderr, "%.200s\n  got  %s\n  want %s\n", toml, got ? got : "(null)", want);
    free(got);
    cJSON_Delete(t);
    return ok;
}

static bool parses(const char *toml, const char *want)
{
    return parses_n(toml, strlen(toml), want);
}

/* Refused, with a message that begins with want (its "line L: " and the start of the what). */
static bool refuses_n(const char *toml, size_t len, const char *want)
{
    char why[256];
    cJSON *t = smc_toml_parse(toml, len, why, sizeof why);
    if (t) {
        char *got = cJSON_PrintUnformatted(t);
        fprintf(stderr, "%.200s\n  accepted: %s\n  want %s\n", toml, got ? got : "", want);
        free(got);
        cJSON_Delete(t);
        return false;
    }
    bool ok = strncmp(why, want, strlen(want)) == 0;
    if (!ok) fprintf(stderr, "%.200s\n  why  %s\n  want %s\n", toml, why, want);
    return ok;
}

static bool refuses(const char *toml, const char *want)
{
    return refuses_n(toml, strlen(toml), want);
}

static void comments_and_keys(void)
{
    CHECK(parses("", "{}"));
    CHECK(parses("# only a comment", "{}"));
    CHECK(parses("\n\n  \t\n# c\r\n", "{}"));
    CHECK(parses("a = 1 # comment with \xc3\xa9 and \t tab\nb = 2", "{\"a\":1,\"b\":2}"));
    CHECK(parses("a = 1\r\nb = 2\r\n", "{\"a\":1,\"b\":2}"));
    CHECK(parses("bare_key-1 = 1\n1234 = 2\n-- = 3", "{\"bare_key-1\":1,\"1234\":2,\"--\":3}"));
    CHECK(parses("\"quoted key\" = 1\n'lit \"key\"' = 2\n\"\" = 3\n\"\\u00e9\" = 4",
                 "{\"quoted key\":1,\"lit \\\"key\\\"\":2,\"\":3,\"\xc3\xa9\":4}"));
    CHECK(parses("a.b.\"c d\" = 1", "{\"a\":{\"b\":{\"c d\":1}}}"));
    CHECK(parses("a . b . 'c' = 1\na.d = 2", "{\"a\":{\"b\":{\"c\":1},\"d\":2}}"));
    CHECK(parses("3.14159 = \"pi\"", "{\"3\":{\"14159\":\"pi\"}}"));
    CHECK(parses("\"a.b\" = 1\na.b = 2", "{\"a.b\":1,\"a\":{\"b\":2}}"));
    CHECK(parses("  a=1\t\n\tb\t=\t2  ", "{\"a\":1,\"b\":2}"));
}

static void tables(void)
{
    CHECK(parses("[a]\nx = 1\n[b]\ny = 2", "{\"a\":{\"x\":1},\"b\":{\"y\":2}}"));
    CHECK(
        parses("[a.b.c]\nx = 1\n[ a . \"b\" . d ]", "{\"a\":{\"b\":{\"c\":{\"x\":1},\"d\":{}}}}"));
    /* an implicit table may get its header later, once */
    CHECK(parses("[a.b]\nx = 1\n[a]\ny = 2", "{\"a\":{\"b\":{\"x\":1},\"y\":2}}"));
    /* a header may pass through tables that dotted keys made */
    CHECK(parses("[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n"
                 "[fruit.apple.texture]\nsmooth = true",
                 "{\"fruit\":{\"apple\":{\"color\":\"red\",\"taste\":{\"sweet\":true},"
                 "\"texture\":{\"smooth\":true}}}}"));
    /* dotted keys may add to a table that only a header's path made */
    CHECK(parses("[a.b.c]\n[a]\nb.d = 1", "{\"a\":{\"b\":{\"c\":{},\"d\":1}}}"));
    CHECK(parses("x.y = 1\n[x.z]\nw = 2", "{\"x\":{\"y\":1,\"z\":{\"w\":2}}}"));
    CHECK(parses("[a]\n[b]\n[a.c]", "{\"a\":{\"c\":{}},\"b\":{}}"));
    CHECK(parses("[\"\"]\nx = 1", "{\"\":{\"x\":1}}"));
    CHECK(parses("[a] # comment\nb = 1", "{\"a\":{\"b\":1}}"));
}

static void arrays_of_tables(void)
{
    CHECK(parses("[[p]]\nn = 1\n[[p]]\nn = 2\n[[p]]", "{\"p\":[{\"n\":1},{\"n\":2},{}]}"));
    /* pip's pylock.toml: wheels of the last package, and hashes of the last wheel */
    CHECK(
        parses("[[packages]]\nname = \"a\"\n[[packages.wheels]]\nname = \"a1\"\n"
               "[packages.wheels.hashes]\nsha256 = \"11\"\n[[packages.wheels]]\nname = \"a2\"\n"
               "[packages.wheels.hashes]\nsha256 = \"22\"\n[[packages]]\nname = \"b\"\n"
               "[[packages.wheels]]\nname = \"b1\"\n[packages.wheels.hashes]\nsha256 = \"33\"\n",
               "{\"packages\":[{\"name\":\"a\",\"wheels\":[{\"name\":\"a1\",\"hashes\":{\"sha256\":"
               "\"11\"}},{\"name\":\"a2\",\"hashes\":{\"sha256\":\"22\"}}]},{\"name\":\"b\","
               "\"wheels\":[{\"name\":\"b1\",\"hashes\":{\"sha256\":\"33\"}}]}]}"));
    CHECK(parses("[[a.b]]\nx = 1\n[a]\ny = 2", "{\"a\":{\"b\":[{\"x\":1}],\"y\":2}}"));
    CHECK(parses("[[ a ]]\n[a.t]\n[[a]]\n[a.t]\nk = 1", "{\"a\":[{\"t\":{}},{\"t\":{\"k\":1}}]}"));
    CHECK(
        parses("[[a]]\nb.c = 1\n[[a]]\nb.c = 2", "{\"a\":[{\"b\":{\"c\":1}},{\"b\":{\"c\":2}}]}"));
}

static void inline_tables_and_arrays(void)
{
    CHECK(parses("a = {}\nb = { x = 1, y = { z = \"w\" } }",
                 "{\"a\":{},\"b\":{\"x\":1,\"y\":{\"z\":\"w\"}}}"));
    CHECK(parses("a = { b.c = 1, b.d = 2, 'e f' = [1, {g = 3}] }",
                 "{\"a\":{\"b\":{\"c\":1,\"d\":2},\"e f\":[1,{\"g\":3}]}}"));
    CHECK(parses("a = []\nb = [ ]\nc = [1,2,3]", "{\"a\":[],\"b\":[],\"c\":[1,2,3]}"));
    CHECK(parses("a = [\n  1, # one\n  2,\n  # alone\n  3,\n]\n", "{\"a\":[1,2,3]}"));
    CHECK(parses("a = [ 1, \"two\", 3.5, [true], {x = 1}, 1979-05-27 ]",
                 "{\"a\":[1,\"two\",3.5,[true],{\"x\":1},\"1979-05-27\"]}"));
    CHECK(parses("a = [[1, 2], [\"a\", 'b'], []]", "{\"a\":[[1,2],[\"a\",\"b\"],[]]}"));
    CHECK(parses("a = { b = [\n1,\n2] }", "{\"a\":{\"b\":[1,2]}}"));
    CHECK(parses("a = [\r\n1\r\n,2]", "{\"a\":[1,2]}"));
}

static void strings(void)
{
    CHECK(parses("s = \"\\b\\t\\n\\f\\r\\\"\\\\\"", "{\"s\":\"\\b\\t\\n\\f\\r\\\"\\\\\"}"));
    CHECK(parses("s = \"\\u00e9\\u20AC\\U0001F600\\U0010FFFF\"",
                 "{\"s\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"}"));
    CHECK(parses("s = \"tab\there \xe6\x97\xa5\"", "{\"s\":\"tab\\there \xe6\x97\xa5\"}"));
    CHECK(parses("s = 'C:\\Users\\n'\nt = ''", "{\"s\":\"C:\\\\Users\\\\n\",\"t\":\"\"}"));
    CHECK(parses("s = \"\"\"\nline1\nline2\"\"\"", "{\"s\":\"line1\\nline2\"}"));
    CHECK(parses("s = \"\"\"\r\nline1\r\nline2\r\n\"\"\"", "{\"s\":\"line1\\nline2\\n\"}"));
    CHECK(parses("s = \"\"\"The quick \\\n\n   brown \\   \n  fox\"\"\"",
                 "{\"s\":\"The quick brown fox\"}"));
    CHECK(parses("s = \"\"\"a\\\r\n   b\"\"\"", "{\"s\":\"ab\"}"));
    CHECK(parses("s = \"\"\"x\"y\"\"z\"\"\"", "{\"s\":\"x\\\"y\\\"\\\"z\"}"));
    CHECK(parses("s = \"\"\"\"q\"\"\"\"", "{\"s\":\"\\\"q\\\"\"}"));
    CHECK(parses("s = \"\"\"q\"\"\"\"\"", "{\"s\":\"q\\\"\\\"\"}"));
    CHECK(parses("s = \"\"\"\"\"\"", "{\"s\":\"\"}"));
    CHECK(parses("s = '''\nraw \\n 'q' ''\n'''", "{\"s\":\"raw \\\\n 'q' ''\\n\"}"));
    CHECK(parses("s = ''''a'''''", "{\"s\":\"'a''\"}"));
    CHECK(parses("s = \"\"\"tab\tok\"\"\"", "{\"s\":\"tab\\tok\"}"));
    CHECK(parses("s = \"a#b\" # c", "{\"s\":\"a#b\"}"));
}

static void numbers_and_booleans(void)
{
    CHECK(parses("a = 0\nb = +17\nc = -17\nd = 1_000_000\ne = -0\nf = +0",
                 "{\"a\":0,\"b\":17,\"c\":-17,\"d\":1000000,\"e\":0,\"f\":0}"));
    CHECK(parses("h = 0xDEAD_beef\no = 0o755\nb = 0b1101_0110\nz = 0x0",
                 "{\"h\":3735928559,\"o\":493,\"b\":214,\"z\":0}"));
    /* cJSON_Print rounds past 15 digits: the values themselves */
    const char *edge = "max = 9007199254740992\nmin = -9007199254740992\nh = 0x1F_FFFF_FFFF_FFFF";
    cJSON *e = smc_toml_parse(edge, strlen(edge), NULL, 0);
    CHECK(e && cJSON_GetObjectItem(e, "max")->valuedouble == 9007199254740992.0);
    CHECK(e && cJSON_GetObjectItem(e, "min")->valuedouble == -9007199254740992.0);
    CHECK(e && cJSON_GetObjectItem(e, "h")->valuedouble == 9007199254740991.0);
    cJSON_Delete(e);
    CHECK(parses("a = 1.5\nb = -0.01\nc = 5e+22\nd = 1e06\ne = -2E-2\nf = 6.626e-34\n"
                 "g = 224_617.445_991\nh = 1e1_0",
                 "{\"a\":1.5,\"b\":-0.01,\"c\":5e+22,\"d\":1000000,\"e\":-0.02,\"f\":6.626e-34,"
                 "\"g\":224617.445991,\"h\":10000000000}"));
    CHECK(parses("t = true\nf = false\na = [true,false]",
                 "{\"t\":true,\"f\":false,\"a\":[true,false]}"));
    const char *special = "a = inf\nb = +inf\nc = -inf\nd = nan\ne = -nan\nf = +nan\ng = 1e400";
    cJSON *t = smc_toml_parse(special, strlen(special), NULL, 0);
    CHECK(t != NULL);
    if (t) {
        CHECK(cJSON_GetObjectItem(t, "a")->valuedouble == HUGE_VAL);
        CHECK(cJSON_GetObjectItem(t, "b")->valuedouble == HUGE_VAL);
        CHECK(cJSON_GetObjectItem(t, "c")->valuedouble == -HUGE_VAL);
        CHECK(isnan(cJSON_GetObjectItem(t, "d")->valuedouble));
        CHECK(isnan(cJSON_GetObjectItem(t, "e")->valuedouble));
        CHECK(isnan(cJSON_GetObjectItem(t, "f")->valuedouble));
        CHECK(cJSON_GetObjectItem(t, "g")->valuedouble == HUGE_VAL);
        CHECK(cJSON_IsNumber(cJSON_GetObjectItem(t, "d")));
        cJSON_Delete(t);
    }
}

static void date_times(void)
{
    CHECK(parses("a = 1979-05-27T07:32:00Z\nb = 1979-05-27T00:32:00.999999-07:00\n"
                 "c = 1979-05-27 07:32:00+05:30\nd = 1979-05-27t07:32:00z",
                 "{\"a\":\"1979-05-27T07:32:00Z\",\"b\":\"1979-05-27T00:32:00.999999-07:00\","
                 "\"c\":\"1979-05-27 07:32:00+05:30\",\"d\":\"1979-05-27t07:32:00z\"}"));
    CHECK(parses(
        "a = 1979-05-27T07:32:00\nb = 1979-05-27\nc = 07:32:00\nd = 00:32:00.5\n"
        "e = 2024-02-29 # leap\nf = 2000-02-29T23:59:59.123456789",
        "{\"a\":\"1979-05-27T07:32:00\",\"b\":\"1979-05-27\",\"c\":\"07:32:00\","
        "\"d\":\"00:32:00.5\",\"e\":\"2024-02-29\",\"f\":\"2000-02-29T23:59:59.123456789\"}"));
    CHECK(parses("a = [1979-05-27T07:32:00Z,07:32:00]\nb = {t = 1979-05-27}",
                 "{\"a\":[\"1979-05-27T07:32:00Z\",\"07:32:00\"],\"b\":{\"t\":\"1979-05-27\"}}"));
}

static void required_errors(void)
{
    /* keys and tables defined twice, in every way */
    CHECK(refuses("a = 1\na = 2", "line 2: key 'a' is defined twice"));
    CHECK(refuses("a = 1\n\"a\" = 2", "line 2: key 'a' is defined twice"));
    CHECK(refuses("a.b = 1\na.b = 2", "line 2: key 'b' is defined twice"));
    CHECK(refuses("a = {b = 1, b = 2}", "line 1: key 'b' is defined twice"));
    CHECK(refuses("[a]\n[a]", "line 2: table [a] is defined twice"));
    CHECK(refuses("[a.b]\n[a]\n[a.b]", "line 3: table [b] is defined twice"));
    CHECK(refuses("[a]\nb = 1\n[a]\nc = 2", "line 3: table [a] is defined twice"));
    CHECK(refuses("a.b = 1\n[a]", "line 2: table [a] was already defined by dotted keys"));
    CHECK(refuses("[fruit]\napple.color = 1\n[fruit.apple]",
                  "line 3: table [apple] was already defined by dotted keys"));
    CHECK(refuses("[a.b]\n[a]\nb.c = 1", "line 3: table 'b' has its own [header]"));
    CHECK(refuses("[a.b.c]\n[a]\nb.d = 1\n[a.b]", "line 4: table [b] was already defined"));
    CHECK(refuses("[a]\nb = 1\n[a.b]", "line 3: key 'b' already holds a value"));
    CHECK(refuses("[a]\nb.c = 1\n[x]\n[a]", "line 4: table [a] is defined twice"));
    /* arrays of tables */
    CHECK(refuses("a = []\n[[a]]", "line 2: 'a' is an array value: [[a]] cannot append"));
    CHECK(refuses("a = [{b = 1}]\n[a.c]", "line 2: 'a' is an array value, not a table"));
    CHECK(refuses("[[a]]\n[a]", "line 2: [a] is an array of tables, not a table"));
    CHECK(refuses("[a]\n[[a]]", "line 2: 'a' is already a table, not an array of tables"));
    CHECK(refuses("a = 1\n[[a]]", "line 2: 'a' is already a value, not an array of tables"));
    CHECK(parses("[[a]]\n[x]\na.b = 1", "{\"a\":[{}],\"x\":{\"a\":{\"b\":1}}}")); /* x.a */
    CHECK(refuses("[[a]]\n[b]\n[a]", "line 3: [a] is an array of tables"));
    CHECK(refuses("[[a.b]]\n[a]\nb.c = 1", "line 3: 'b' is an array of tables"));
    /* inline tables are closed */
    CHECK(refuses("a = {b = 1}\na.c = 2", "line 2: 'a' is an inline table"));
    CHECK(refuses("a = {b = 1}\n[a]", "line 2: key 'a' already holds a value"));
    CHECK(refuses("a = {b = 1}\n[a.c]", "line 2: 'a' is an inline table"));
    CHECK(refuses("a = {b = {}}\n[a.b.c]", "line 2: 'a' is an inline table"));
    CHECK(refuses("a = {b = {}, b.c = 1}", "line 1: 'b' is an inline table"));
    CHECK(refuses("a = {b.c = 1, b = 2}", "line 1: key 'b' is defined twice"));
    /* values used as tables */
    CHECK(refuses("a = 1\na.b = 2", "line 2: 'a' is already a value, not a table"));
    CHECK(refuses("a = 1\n[a.b]", "line 2: 'a' is already a value, not a table"));
    CHECK(refuses("a = 1\n[a]", "line 2: key 'a' already holds a value"));
    CHECK(refuses("a = \"s\"\n[[a.b]]", "line 2: 'a' is already a value, not a table"));
    /* invalid UTF-8, anywhere */
    CHECK(refuses("a = \"\xff\"", "line 1: invalid UTF-8"));
    CHECK(refuses("# ok\n# \xc0\x80 overlong", "line 2: invalid UTF-8"));
    CHECK(refuses("a = '\xed\xa0\x80'", "line 1: invalid UTF-8"));     /* a surrogate */
    CHECK(refuses("a = '\xf4\x90\x80\x80'", "line 1: invalid UTF-8")); /* past U+10FFFF */
    CHECK(refuses("a = '\xe2\x82'", "line 1: invalid UTF-8"));         /* truncated */
    CHECK(refuses("a = 1\n\xe2\x82", "line 2: invalid UTF-8"));        /* at the end */
    CHECK(refuses("\xef\xbb\xbf"
                  "a = 1",
                  "line 1: expected a key")); /* no BOM, as tomllib */
    /* control characters */
    CHECK(refuses("a = \"\x01\"", "line 1: control character U+0001 in a string"));
    CHECK(refuses("a = '\x7f'", "line 1: control character U+007F in a string"));
    CHECK(refuses("a = \"\"\"\x1b\"\"\"", "line 1: control character U+001B in a string"));
    CHECK(refuses("a = '''\n\x0c'''", "line 2: control character U+000C in a string"));
    CHECK(refuses("a = 1 # \x7f", "line 1: control character U+007F in a comment"));
    CHECK(refuses_n("a = \"x\0\"", 8, "line 1: control character U+0000 in a string"));
    CHECK(refuses_n("a = 1\n\0", 7, "line 2: expected a key, found byte 0x00"));
    CHECK(refuses("a = \"x\ny\"", "line 1: newline in a single-line string"));
    CHECK(refuses("a = 'x\ny'", "line 1: newline in a single-line string"));
    /* bare carriage returns */
    CHECK(refuses("a = 1\rb = 2", "line 1: carriage return without a line feed"));
    CHECK(refuses("a = 1 # c\r", "line 1: carriage return without a line feed"));
    CHECK(refuses("a = \"\"\"x\ry\"\"\"", "line 1: carriage return without a line feed"));
    CHECK(refuses("a = '''x\ry'''", "line 1: carriage return without a line feed"));
    CHECK(refuses("a = [1,\r2]", "line 1: carriage return without a line feed"));
    CHECK(refuses("a = \"\"\"x\\\r\"\"\"", "line 1: carriage return without a line feed"));
}

static void other_errors(void)
{
    CHECK(refuses("a = \"\\x41\"", "line 1: invalid escape \\x"));
    CHECK(refuses("a = \"\\e\"", "line 1: invalid escape \\e")); /* TOML 1.1, not 1.0 */
    CHECK(refuses("a = \"\\ \"", "line 1: invalid escape \\ "));
    CHECK(refuses("a = \"\\uD800\"", "line 1: \\uD800 is not a Unicode scalar value"));
    CHECK(refuses("a = \"\\U00110000\"", "line 1: \\U00110000 is not a Unicode scalar"));
    CHECK(refuses("a = \"\\u12\"", "line 1: \\u needs 4 hexadecimal digits"));
    CHECK(refuses("a = \"\\u0000\"", "line 1: \\u0000: U+0000 cannot be held"));
    CHECK(refuses("\"\\u0000\" = 1", "line 1: \\u0000: U+0000 cannot be held"));
    CHECK(refuses("a = \"\"\"x\\  y\"\"\"", "line 1: a backslash followed by blanks"));
    CHECK(refuses("a = \"abc", "line 1: unterminated string"));
    CHECK(refuses("a = \"\"\"\nabc\"\"", "line 1: unterminated multi-line string"));
    CHECK(refuses("a = '''abc''", "line 1: unterminated multi-line string"));
    CHECK(refuses("a = \"\"\"x\"\"\"\"\"\"", "line 1: '\"' after a value"));
    CHECK(refuses("\"\"\"k\"\"\" = 1", "line 1: a key cannot be a multi-line string"));
    /* integers */
    CHECK(refuses("a = 01", "line 1: a decimal number cannot have a leading zero"));
    CHECK(refuses("a = 0_1", "line 1: a decimal number cannot have a leading zero"));
    CHECK(refuses("a = 1__0", "line 1: '_' in a number must stand between digits"));
    CHECK(refuses("a = 1_", "line 1: '_' in a number must stand between digits"));
    CHECK(refuses("a = _1", "line 1: expected a value, found '_'"));
    CHECK(refuses("a = 0x", "line 1: expected a digit"));
    CHECK(refuses("a = 0x_1", "line 1: expected a digit"));
    CHECK(refuses("a = 0o8", "line 1: expected a digit"));
    CHECK(refuses("a = 0b12", "line 1: '2' after a value"));
    CHECK(refuses("a = +0x1", "line 1: 'x' after a value"));
    CHECK(refuses("a = 0X1", "line 1: 'X' after a value"));
    CHECK(refuses("a = 9007199254740993", "line 1: integer 9007199254740993 is beyond +-2^53"));
    CHECK(
        refuses("a = -9_007_199_254_740_993", "line 1: integer -9_007_199_254_740_993 is beyond"));
    CHECK(refuses("a = 0x20000000000001", "line 1: integer 0x20000000000001 is beyond"));
    CHECK(refuses("a = 99999999999999999999999999999", "line 1: integer 999"));
    CHECK(refuses("a = 1 2", "line 1: '2' after a value"));
    CHECK(refuses("a = 123abc", "line 1: 'a' after a value"));
    /* floats */
    CHECK(refuses("a = .5", "line 1: expected a value, found '.'"));
    CHECK(refuses("a = 5.", "line 1: expected a digit after the decimal point"));
    CHECK(refuses("a = 1.e5", "line 1: expected a digit after the decimal point"));
    CHECK(refuses("a = 1e", "line 1: expected digits in the exponent"));
    CHECK(refuses("a = 1e_5", "line 1: expected digits in the exponent"));
    CHECK(refuses("a = 01.5", "line 1: a decimal number cannot have a leading zero"));
    CHECK(refuses("a = 1.5_", "line 1: '_' in a number must stand between digits"));
    CHECK(refuses("a = infinity", "line 1: 'i' after a value"));
    CHECK(refuses("a = Inf", "line 1: expected a value, found 'I'"));
    /* booleans */
    CHECK(refuses("a = True", "line 1: expected a value, found 'T'"));
    CHECK(refuses("a = truex", "line 1: 'x' after a value"));
    CHECK(refuses("a = fals", "line 1: expected a value (true or false?)"));
    /* dates and times */
    CHECK(refuses("a = 2023-02-29", "line 1: invalid date: no such day"));
    CHECK(refuses("a = 2023-13-01", "line 1: invalid date: no such day"));
    CHECK(refuses("a = 2023-04-31", "line 1: invalid date: no such day"));
    CHECK(refuses("a = 0000-01-01", "line 1: invalid date: no such day"));
    CHECK(refuses("a = 1979-5-27", "line 1: invalid date (YYYY-MM-DD)"));
    CHECK(refuses("a = 24:00:00", "line 1: invalid time"));
    CHECK(refuses("a = 07:32", "line 1: invalid time"));
    CHECK(refuses("a = 1979-05-27T07:32", "line 1: invalid time after the date"));
    CHECK(refuses("a = 1979-05-27T07:32:60", "line 1: invalid time after the date"));
    CHECK(refuses("a = 1979-05-27 07:32", "line 1: '0' after a value"));
    CHECK(refuses("a = 1979-05-27T07:32:00+7:00", "line 1: '+' after a value"));
    CHECK(refuses("a = 1979-05-27T07:32:00.", "line 1: '.' after a value"));
    CHECK(refuses("a = 07:32:00Z", "line 1: 'Z' after a value"));
    /* structure */
    CHECK(refuses("a =", "line 1: expected a value, found the end"));
    CHECK(refuses("a = # c", "line 1: expected a value, found '#'"));
    CHECK(refuses("= 1", "line 1: expected a key, found '='"));
    CHECK(refuses("a 1", "line 1: expected '=' after a key, found '1'"));
    CHECK(refuses("a.= 1", "line 1: expected a key, found '='"));
    CHECK(refuses("a = 1 b = 2", "line 1: 'b' after a value"));
    CHECK(refuses("[a", "line 1: expected ']' to close the table header"));
    CHECK(refuses("[[a]", "line 1: expected ']]' to close the header"));
    CHECK(refuses("[[a] ]", "line 1: expected ']]' to close the header"));
    CHECK(refuses("[]", "line 1: expected a key, found ']'"));
    CHECK(refuses("[a] b = 1", "line 1: 'b' after a table header"));
    CHECK(refuses("a = {b = 1,}", "line 1: a trailing comma in an inline table"));
    CHECK(refuses("a = {b = 1\n}", "line 1: expected ',' or '}' in an inline table"));
    CHECK(refuses("a = {\nb = 1}", "line 1: expected a key"));
    CHECK(refuses("a = {b = 1", "line 1: unterminated inline table"));
    CHECK(refuses("a = [1 2]", "line 1: expected ',' or ']' in an array"));
    CHECK(refuses("a = [,]", "line 1: expected a value, found ','"));
    CHECK(refuses("a = [1,,2]", "line 1: expected a value, found ','"));
    CHECK(refuses("a = [1,\n2", "line 2: unterminated array"));
    CHECK(refuses("\n\n\na = 1\n\n  b = {c = [1, 2, @]}", "line 6: expected a value, found '@'"));
}

static void why_and_bounds(void)
{
    char why[8];
    CHECK(smc_toml_parse("a = 1\na = 2", 11, why, sizeof why) == NULL);
    CHECK(strcmp(why, "line 2:") == 0); /* cut to the 8 bytes given */
    CHECK(smc_toml_parse("a = 1\na = 2", 11, NULL, 0) == NULL);
    CHECK(smc_toml_parse("a = 1\na = 2", 11, why, 0) == NULL);
    CHECK(smc_toml_parse(NULL, 1, why, sizeof why) == NULL);
    cJSON *t = smc_toml_parse(NULL, 0, why, sizeof why);
    CHECK(t && !t->child && why[0] == '\0');
    cJSON_Delete(t);
    /* the length is what counts, not a NUL: "a = 12" read as "a = 1" */
    CHECK(parses_n("a = 12", 5, "{\"a\":1}"));
    CHECK(refuses_n("a = \"xy\"", 7, "line 1: unterminated string"));
    CHECK(refuses_n("a = 1979-05-27T07:32:00Z", 22, "line 1: invalid time after the date"));
    CHECK(refuses_n("a = \"\\u00e", 10, "line 1: \\u needs 4 hexadecimal digits"));
    CHECK(refuses_n("a = tru", 7, "line 1: expected a value (true or false?)"));
    /* keys in messages: cut and made printable */
    CHECK(refuses("\"\\u0001\\u00e9"
                  "0123456789012345678901234567890123456789\" = 1\n"
                  "\"\\u0001\\u00e9"
                  "0123456789012345678901234567890123456789\" = 2",
                  "line 2: key '???0123456789012345678901234567890123456...' is defined twice"));
}

/* Text of n repetitions of unit between head and tail. */
static char *repeat(const char *head, const char *unit, size_t n, const char *tail)
{
    size_t h = strlen(head), u = strlen(unit), t = strlen(tail);
    char *s = malloc(h + u * n + t + 1);
    if (!s) abort();
    memcpy(s, head, h);
    for (size_t i = 0; i < n; i++)
        memcpy(s + h + i * u, unit, u);
    memcpy(s + h + u * n, tail, t + 1);
    return s;
}

static bool depth_is(const char *head, const char *unit, size_t n, const char *tail, bool ok)
{
    char *s = repeat(head, unit, n, tail);
    char why[256];
    cJSON *t = smc_toml_parse(s, strlen(s), why, sizeof why);
    bool good = ok ? t != NULL : !t && strstr(why, "nested deeper than 128 levels");
    if (!good) fprintf(stderr, "%s%s x %zu: %s\n", head, unit, n, t ? "accepted" : why);
    cJSON_Delete(t);
    free(s);
    return good;
}

static void deep(void)
{
    /* the tree's depth: the root is 0, a = [ is 1 */
    char *close = repeat("", "]", 128, "");
    CHECK(depth_is("a = ", "[", 128, close, true));
    CHECK(depth_is("a = ", "[", 129, close, false));
    CHECK(depth_is("a = ", "[", 100000, "", false));
    free(close);
    close = repeat("1", "}", 128, "");
    CHECK(depth_is("a = ", "{b=", 128, close, true));
    free(close);
    close = repeat("1", "}", 129, "");
    CHECK(depth_is("a = ", "{b=", 129, close, false));
    free(close);
    CHECK(depth_is("a = ", "{b=", 200000, "", false));
    CHECK(depth_is("a = [", "{b=[", 100000, "", false));
    CHECK(depth_is("x", ".x", 128, " = 1", true)); /* 128 tables, then a number */
    CHECK(depth_is("x", ".x", 129, " = 1", false));
    CHECK(depth_is("[x", ".x", 127, "]", true));
    CHECK(depth_is("[x", ".x", 128, "]", false));
    CHECK(depth_is("[[x", ".x", 126, "]]", true)); /* the array at 127, its element at 128 */
    CHECK(depth_is("[[x", ".x", 127, "]]", false));
    CHECK(depth_is("a = {", "b.", 100000, "c = 1}", false));
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds to parse text (NULL tree: -1). */
static double parse_time(const char *text, size_t len, size_t *keys)
{
    char why[256];
    double t0 = now();
    cJSON *t = smc_toml_parse(text, len, why, sizeof why);
    double dt = now() - t0;
    if (!t) {
        fprintf(stderr, "refused: %s\n", why);
        return -1;
    }
    if (keys) *keys = (size_t)cJSON_GetArraySize(t->child ? t->child : t);
    cJSON_Delete(t);
    return dt;
}

/* Large inputs: the time grows with the length, whatever the shape. Each bound is 5 s, some
 * fifteen times what the parse takes (at -O1, 2025 hardware) and far below what work quadratic in
 * the keys of a table would take; TOML_TIME_FACTOR multiplies them (valgrind: 10). The times are
 * printed. */
static double limit = 5;

static void large(void)
{
    const char *factor = getenv("TOML_TIME_FACTOR");
    if (factor && atof(factor) > 0) limit *= atof(factor);
    size_t cap = 12u << 20, len = 0;
    char *s = malloc(cap);
    if (!s) abort();
    /* 200,000 keys in one table */
    len = (size_t)snprintf(s, cap, "[t]\n");
    for (int i = 0; i < 200000; i++)
        len += (size_t)snprintf(s + len, cap - len, "key_%d = %d\n", i, i);
    size_t keys = 0;
    double dt = parse_time(s, len, &keys);
    printf("200000 keys in one table: %.3f s\n", dt);
    CHECK(dt >= 0 && dt < limit && keys == 200000);
    /* the same in one inline table, and as one array */
    len = (size_t)snprintf(s, cap, "t = {");
    for (int i = 0; i < 200000; i++)
        len += (size_t)snprintf(s + len, cap - len, "%sk%d = %d", i ? ", " : "", i, i);
    len += (size_t)snprintf(s + len, cap - len, "}\n");
    dt = parse_time(s, len, &keys);
    printf("200000 keys in one inline table: %.3f s\n", dt);
    CHECK(dt >= 0 && dt < limit && keys == 200000);
    /* about 10 MB shaped as uv.lock: packages with wheels of inline tables */
    len = 0;
    for (int i = 0; len < (10u << 20); i++)
        len += (size_t)snprintf(
            s + len, cap - len,
            "[[package]]\nname = \"pkg%d\"\nversion = \"1.%d.0\"\nsource = { registry = "
            "\"https://pypi.org/simple\" }\nwheels = [\n    { url = \"https://files.example/"
            "pkg%d-1.0-py3-none-any.whl\", hash = \"sha256:%064d\", size = %d, upload-time = "
            "2025-04-07T13:32:52Z },\n]\n\n[package.metadata]\nrequires-dist = [{ name = \"x\", "
            "specifier = \">=1\" }]\n\n",
            i, i, i, i, i * 7);
    dt = parse_time(s, len, &keys);
    printf("%.1f MB shaped as uv.lock (%zu packages): %.3f s\n", (double)len / (1 << 20), keys, dt);
    CHECK(dt >= 0 && dt < limit);
    /* a 10 MB string, 10 MB of comments, a 1 MB float */
    len = 0;
    s[len++] = 'a', s[len++] = '=', s[len++] = '"';
    memset(s + len, 'x', 10u << 20);
    len += 10u << 20;
    s[len++] = '"';
    dt = parse_time(s, len, NULL);
    printf("a 10 MB string: %.3f s\n", dt);
    CHECK(dt >= 0 && dt < limit);
    memset(s, '#', 10u << 20);
    dt = parse_time(s, 10u << 20, NULL);
    CHECK(dt >= 0 && dt < limit);
    len = (size_t)snprintf(s, cap, "a = 0.");
    memset(s + len, '1', 1u << 20);
    len += 1u << 20;
    dt = parse_time(s, len, NULL);
    printf("a float of a million digits: %.3f s\n", dt);
    CHECK(dt >= 0 && dt < limit);
    /* 100,000 [[x]] headers, and 100,000 tables */
    len = 0;
    for (int i = 0; i < 100000; i++)
        len += (size_t)snprintf(s + len, cap - len, "[[x.y]]\n[x.y.z]\na = %d\n", i);
    dt = parse_time(s, len, NULL);
    CHECK(dt >= 0 && dt < limit);
    len = 0;
    for (int i = 0; i < 100000; i++)
        len += (size_t)snprintf(s + len, cap - len, "[t.k%d]\na.b = %d\n", i, i);
    dt = parse_time(s, len, NULL);
    CHECK(dt >= 0 && dt < limit);
    free(s);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    for (size_t got; s && (got = fread(s + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) free(s);
            s = t;
        }
    }
    fclose(f);
    *len = n;
    return s;
}

static cJSON *parse_file(const char *dir, const char *name)
{
    char path[4096], why[256];
    snprintf(path, sizeof path, "%s/locks/%s", dir, name);
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        fprintf(stderr, "%s: cannot read\n", path);
        return NULL;
    }
    cJSON *t = smc_toml_parse(text, len, why, sizeof why);
    if (!t) fprintf(stderr, "%s: %s\n", path, why);
    free(text);
    return t;
}

static const char *str_at(const cJSON *obj, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, key));
    return s ? s : "";
}

static void lock_files(const char *dir)
{
    cJSON *pip = parse_file(dir, "pylock.pip.toml");
    CHECK(pip != NULL);
    if (pip) {
        CHECK(strcmp(str_at(pip, "lock-version"), "1.0") == 0);
        CHECK(strcmp(str_at(pip, "created-by"), "pip") == 0);
        const cJSON *pkg, *torch = NULL;
        cJSON_ArrayForEach(pkg, cJSON_GetObjectItem(
                                    pip, "packages")) if (strcmp(str_at(pkg, "name"), "torch") == 0)
            torch = pkg;
        const cJSON *wheel = cJSON_GetArrayItem(cJSON_GetObjectItem(torch, "wheels"), 0);
        CHECK(strcmp(str_at(cJSON_GetObjectItem(wheel, "hashes"), "sha256"),
                     "c12fa219f51a933d5f80eeb3a7a5d0cbe9168c0a14bbb4055f1979431660879b") == 0);
        cJSON_Delete(pip);
    }
    cJSON *uv = parse_file(dir, "pylock.toml");
    CHECK(uv != NULL);
    if (uv) {
        CHECK(strcmp(str_at(uv, "created-by"), "uv") == 0);
        const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(uv, "packages"), 0);
        const cJSON *wheel = cJSON_GetArrayItem(cJSON_GetObjectItem(first, "wheels"), 0);
        CHECK(strcmp(str_at(first, "name"), "bitsandbytes") == 0);
        CHECK(strcmp(str_at(wheel, "upload-time"), "2025-04-07T13:32:52Z") == 0); /* unquoted */
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(wheel, "size")) == 76059261);
        CHECK(strcmp(str_at(cJSON_GetObjectItem(wheel, "hashes"), "sha256"),
                     "a5453f30cc6aab6ccaac364e6bf51a7808d3da5f71763dffeb6d9694c59136e4") == 0);
        cJSON_Delete(uv);
    }
    cJSON *lock = parse_file(dir, "uv.lock");
    CHECK(lock != NULL);
    if (lock) {
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(lock, "version")) == 1);
        CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(lock, "package")) == 33);
        CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(lock, "resolution-markers")) == 3);
        const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(lock, "package"), 0);
        CHECK(strcmp(str_at(cJSON_GetObjectItem(first, "source"), "registry"),
                     "https://pypi.org/simple") == 0);
        cJSON_Delete(lock);
    }
}

/* --dump's JSON, printed here: cJSON_Print rounds numbers of more than 15 digits, and writes
 * null for inf and nan (here "__inf__", "__-inf__", "__nan__"). The depth is bounded by the
 * parser's. */
static void print_json(const cJSON *item)
{
    if (cJSON_IsObject(item) || cJSON_IsArray(item)) {
        bool obj = cJSON_IsObject(item);
        putchar(obj ? '{' : '[');
        for (const cJSON *c = item->child; c; c = c->next) {
            if (obj) {
                cJSON key = {.type = cJSON_String, .valuestring = c->string};
                print_json(&key);
                putchar(':');
            }
            print_json(c);
            if (c->next) putchar(',');
        }
        putchar(obj ? '}' : ']');
    } else if (cJSON_IsString(item)) {
        putchar('"');
        for (const unsigned char *s = (const unsigned char *)item->valuestring; *s; s++)
            if (*s == '"' || *s == '\\')
                printf("\\%c", *s);
            else if (*s < 0x20)
                printf("\\u%04x", *s);
            else
                putchar(*s);
        putchar('"');
    } else if (cJSON_IsNumber(item)) {
        double v = item->valuedouble;
        if (isnan(v))
            printf("\"__nan__\"");
        else if (isinf(v))
            printf(v > 0 ? "\"__inf__\"" : "\"__-inf__\"");
        else if (v == floor(v) && fabs(v) <= 9007199254740992.0)
            printf("%.0f", v);
        else
            printf("%.17g", v);
    } else if (cJSON_IsBool(item))
        printf(cJSON_IsTrue(item) ? "true" : "false");
    else
        printf("null");
}

/* One line per file: its tree, or "error: why". 1 when some file was refused. */
static int dump(char **paths, int n)
{
    int status = 0;
    for (int i = 0; i < n; i++) {
        size_t len;
        char *text = read_file(paths[i], &len), why[256];
        if (!text) {
            fprintf(stderr, "%s: cannot read\n", paths[i]);
            return 2;
        }
        cJSON *t = smc_toml_parse(text, len, why, sizeof why);
        free(text);
        if (!t) {
            printf("error: %s\n", why);
            status = 1;
            continue;
        }
        print_json(t);
        putchar('\n');
        cJSON_Delete(t);
    }
    return status;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--dump") == 0) return dump(argv + 2, argc - 2);
    comments_and_keys();
    tables();
    arrays_of_tables();
    inline_tables_and_arrays();
    strings();
    numbers_and_booleans();
    date_times();
    required_errors();
    other_errors();
    why_and_bounds();
    deep();
    large();
    if (argc > 1) lock_files(argv[1]);
    return check_report();
}
