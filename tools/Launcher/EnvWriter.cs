using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;

namespace AlvorKit.Interception.Launcher;

/// <summary>`env`: the variables `run` would set, for a shell or an IDE launch profile.</summary>
internal static class EnvWriter
{
    public const string LaunchProfileName = "AlvorKit Interception";

    public static string Write(ProfilerSettings settings, EnvFormat format) => format switch
    {
        EnvFormat.Sh => Sh(settings),
        EnvFormat.PowerShell => PowerShell(settings),
        EnvFormat.Json => Json(settings),
        EnvFormat.LaunchSettings => LaunchSettings(settings),
        _ => throw new ArgumentOutOfRangeException(nameof(format)),
    };

    // eval "$(alvorkit-intercept env --modules Game.Logic)"
    private static string Sh(ProfilerSettings settings)
    {
        var text = new StringBuilder();
        text.Append($"# AlvorKit Interception Profiler ({settings.Rid}), library from {settings.Profiler.Source}\n");
        foreach (Variable v in settings.Variables())
            text.Append(v.Value is null ? $"unset {v.Name}\n" : $"export {v.Name}={ShQuote(v.Value)}\n");
        return text.ToString();
    }

    // alvorkit-intercept env --format powershell --modules Game.Logic | Invoke-Expression
    private static string PowerShell(ProfilerSettings settings)
    {
        var text = new StringBuilder();
        text.Append($"# AlvorKit Interception Profiler ({settings.Rid}), library from {settings.Profiler.Source}\n");
        foreach (Variable v in settings.Variables())
            text.Append(v.Value is null
                ? $"Remove-Item Env:{v.Name} -ErrorAction SilentlyContinue\n"
                : $"$env:{v.Name} = {PsQuote(v.Value)}\n");
        return text.ToString();
    }

    // {"rid", "profiler", "source", "environment": {name: value}, "unset": [names]}
    private static string Json(ProfilerSettings settings) => WriteJson(w =>
    {
        w.WriteStartObject();
        w.WriteString("rid", settings.Rid);
        w.WriteString("profiler", settings.Profiler.Path);
        w.WriteString("source", settings.Profiler.Source);
        w.WriteStartObject("environment");
        foreach (Variable v in settings.Variables())
            if (v.Value is not null)
                w.WriteString(v.Name, v.Value);
        w.WriteEndObject();
        w.WriteStartArray("unset");
        foreach (Variable v in settings.Variables())
            if (v.Value is null)
                w.WriteStringValue(v.Name);
        w.WriteEndArray();
        w.WriteEndObject();
    });

    // A Properties/launchSettings.json with one profile; merge the profile into an existing file.
    // A launch profile can only add variables: remove inherited ALVORKIT_* ones yourself.
    private static string LaunchSettings(ProfilerSettings settings) => WriteJson(w =>
    {
        w.WriteStartObject();
        w.WriteStartObject("profiles");
        w.WriteStartObject(LaunchProfileName);
        w.WriteString("commandName", "Project");
        w.WriteStartObject("environmentVariables");
        foreach (Variable v in settings.Variables())
            if (v.Value is not null)
                w.WriteString(v.Name, v.Value);
        w.WriteEndObject();
        w.WriteEndObject();
        w.WriteEndObject();
        w.WriteEndObject();
    });

    private static string WriteJson(Action<Utf8JsonWriter> write)
    {
        var options = new JsonWriterOptions
        {
            Indented = true,
            Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping, // a file, not HTML: keep paths readable
        };
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer, options))
            write(writer);
        return Encoding.UTF8.GetString(buffer.ToArray()) + "\n";
    }

    private static string ShQuote(string value) => "'" + value.Replace("'", "'\\''") + "'";

    private static string PsQuote(string value) => "'" + value.Replace("'", "''") + "'";
}
