// The options form made from a game type's JSON schema.
import { describe, expect, it } from "vitest";
import { defaultsOf, fieldsOf, parseNumber } from "../src/schemaform";

describe("the options form", () => {
  const schema = {
    type: "object",
    properties: {
      target_score: { type: "integer", minimum: 1, maximum: 121, default: 11, title: "Target score", description: "The match ends..." },
      napola: { type: "boolean", default: true, title: "Napola" },
      asso_pigliatutto: { type: "boolean", default: false, title: "Asso pigliatutto" },
    },
  };

  it("makes one field per property, in order, with bounds and titles", () => {
    const fields = fieldsOf(schema);
    expect(fields.map((f) => [f.key, f.kind, f.title])).toEqual([
      ["target_score", "integer", "Target score"],
      ["napola", "boolean", "Napola"],
      ["asso_pigliatutto", "boolean", "Asso pigliatutto"],
    ]);
    expect(fields[0]).toMatchObject({ min: 1, max: 121, description: "The match ends..." });
  });

  it("starts from the defaults", () => {
    expect(defaultsOf(schema)).toEqual({ target_score: 11, napola: true, asso_pigliatutto: false });
  });

  it("keeps integers whole", () => {
    expect(parseNumber(fieldsOf(schema)[0], "21.7")).toBe(21);
    expect(parseNumber(fieldsOf(schema)[0], "")).toBe("");
  });
});

describe("a choice (enum)", () => {
  const schema = {
    type: "object",
    properties: { pace: { type: "string", enum: ["live", "daily"], default: "live", title: "pace", description: "server words" } },
  };

  it("becomes a choice with the app's words for the pace, live by default", () => {
    const [pace] = fieldsOf(schema);
    expect(pace.kind).toBe("choice");
    expect(pace.title).toBe("Pace");
    expect(pace.choices).toEqual([
      { value: "live", label: "Live (30 s a turn)" },
      { value: "daily", label: "Daily (a day a turn)" },
    ]);
    expect(defaultsOf(schema)).toEqual({ pace: "live" });
  });

  it("shows an unknown option's values as they are", () => {
    const [speed] = fieldsOf({ type: "object", properties: { speed: { type: "string", enum: ["slow", "fast"] } } });
    expect(speed.choices?.map((c) => c.label)).toEqual(["slow", "fast"]);
    expect(speed.default).toBe("slow");
  });
});
