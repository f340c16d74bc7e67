import { afterEach, describe, expect, it } from "vitest";
import { setLang } from "../src/i18n";
import { formatSeconds, offsetFromDateHeader, secondsLeft, timeAgo } from "../src/countdown";

const DEADLINE = "2026-12-02T10:00:30.000Z";
const at = (iso: string) => Date.parse(iso);

describe("secondsLeft", () => {
  it("counts whole seconds up to the deadline, rounding up", () => {
    expect(secondsLeft(DEADLINE, at("2026-12-02T10:00:00.000Z"))).toBe(30);
    expect(secondsLeft(DEADLINE, at("2026-12-02T10:00:29.100Z"))).toBe(1);
    expect(secondsLeft(DEADLINE, at("2026-12-02T10:00:20.500Z"))).toBe(10);
  });

  it("never goes below zero", () => {
    expect(secondsLeft(DEADLINE, at("2026-12-02T10:00:30.000Z"))).toBe(0);
    expect(secondsLeft(DEADLINE, at("2026-12-02T11:00:00.000Z"))).toBe(0);
  });

  it("corrects a browser clock that runs behind the server by the offset", () => {
    // The browser says 09:59:00 but the server is 60 s ahead: 30 s are left, not 90.
    expect(secondsLeft(DEADLINE, at("2026-12-02T09:59:00.000Z"), 60_000)).toBe(30);
  });

  it("is 0 for a missing or broken deadline", () => {
    expect(secondsLeft(undefined, 0)).toBe(0);
    expect(secondsLeft("soon", 0)).toBe(0);
  });

  it("formats short and long waits", () => {
    expect(formatSeconds(9)).toBe("9 s");
    expect(formatSeconds(75)).toBe("1:15");
    expect(formatSeconds(3599)).toBe("59:59");
    expect(formatSeconds(3600)).toBe("1 h");
    expect(formatSeconds(86_391)).toBe("23 h");
  });
});

describe("offsetFromDateHeader", () => {
  const header = "Wed, 02 Dec 2026 10:00:00 GMT";
  it("ignores the header's own one-second resolution", () => {
    expect(offsetFromDateHeader(header, at("2026-12-02T10:00:00.300Z"), at("2026-12-02T10:00:00.500Z"))).toBe(0);
  });

  it("measures a clock that is clearly off", () => {
    // Our clock reads 09:58:00.4 when the server's reads 10:00:00.x: about 120 s behind.
    const offset = offsetFromDateHeader(header, at("2026-12-02T09:58:00.300Z"), at("2026-12-02T09:58:00.500Z"));
    expect(offset).toBe(120_100);
  });

  it("gives nothing without a usable header", () => {
    expect(offsetFromDateHeader(null, 0, 0)).toBeNull();
    expect(offsetFromDateHeader("yesterday", 0, 0)).toBeNull();
  });
});

describe("timeAgo", () => {
  const now = at("2026-12-02T10:00:00.000Z");
  it("says how long ago a change was", () => {
    expect(timeAgo("2026-12-02T09:59:30.000Z", now)).toBe("just now");
    expect(timeAgo("2026-12-02T09:55:00.000Z", now)).toBe("5 min ago");
    expect(timeAgo("2026-12-02T07:00:00.000Z", now)).toBe("3 h ago");
    expect(timeAgo("2026-11-30T10:00:00.000Z", now)).toBe("2 days ago");
  });

  it("says it in Italian, with the hour spelled out", () => {
    setLang("it", null);
    expect(timeAgo("2026-12-02T09:00:00.000Z", now)).toBe("1 ora fa");
    expect(timeAgo("2026-12-02T07:00:00.000Z", now)).toBe("3 ore fa");
    expect(timeAgo("2026-12-01T10:00:00.000Z", now)).toBe("1 giorno fa");
  });
  afterEach(() => setLang("en", null));

  it("treats a time slightly in the future (clock skew) as just now, and ignores junk", () => {
    expect(timeAgo("2026-12-02T10:00:05.000Z", now)).toBe("just now");
    expect(timeAgo(undefined, now)).toBe("");
  });
});
