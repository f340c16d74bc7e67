// The deep link kept over login: the path opened before logging in, and only the app's own.
import { describe, expect, it } from "vitest";
import { isAppPath, rememberDeepLink, takeDeepLink } from "../src/afterlogin";

describe("the deep link kept over login", () => {
  function store() {
    const data = new Map<string, string>();
    return {
      getItem: (k: string) => data.get(k) ?? null,
      setItem: (k: string, v: string) => void data.set(k, v),
      removeItem: (k: string) => void data.delete(k),
    };
  }

  it("gives back the remembered path once", () => {
    const s = store();
    rememberDeepLink("/join/K7QX2M", s);
    expect(takeDeepLink(s)).toBe("/join/K7QX2M");
    expect(takeDeepLink(s)).toBeNull();
  });

  it("keeps only the app's own paths", () => {
    const s = store();
    rememberDeepLink("/", s);
    expect(takeDeepLink(s)).toBeNull();
    expect(isAppPath("//evil.example/x")).toBe(false);
    expect(isAppPath("/auth/logout")).toBe(false);
    expect(isAppPath("/games/6f1c-2a9e")).toBe(true);
  });
});
