using System.Text.Json.Nodes;

namespace AlvorKit.Proofs;

/// <summary>
/// Lookups in JSON this repository does not write as a report record: the speedscope file an
/// exporter wrote (checked against speedscope's own schema) and the live demo's output. A key
/// that is not there fails the test, naming the key and the JSON.
/// </summary>
public static class ExternalJson
{
    public static string Text(this JsonNode node, string key) =>
        node[key]?.GetValue<string>() ?? throw new Xunit.Sdk.XunitException($"no \"{key}\" in {node.ToJsonString()}");

    public static T Value<T>(this JsonNode node, string key) =>
        node[key] is { } value ? value.GetValue<T>() : throw new Xunit.Sdk.XunitException($"no \"{key}\" in {node.ToJsonString()}");
}
