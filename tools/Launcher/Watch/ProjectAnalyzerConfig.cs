using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>
/// The project's .editorconfig and .globalconfig files (the compiler's /analyzerconfig
/// arguments), read the way csc reads them: the options source generators see (build_property.*
/// and per-file options), and the diagnostic severities they set, per file and global, so that
/// a warning the project silences is not an error under /warnaserror here either.
/// </summary>
internal sealed class ProjectAnalyzerConfig
{
    private readonly AnalyzerConfigSet _set;

    private ProjectAnalyzerConfig(AnalyzerConfigSet set) => _set = set;

    public static ProjectAnalyzerConfig Read(IEnumerable<string> paths)
    {
        var configs = paths.Select(p => AnalyzerConfig.Parse(File.ReadAllText(p), p)).ToArray();
        return new ProjectAnalyzerConfig(AnalyzerConfigSet.Create(configs));
    }

    /// <summary>What the generators see.</summary>
    public AnalyzerConfigOptionsProvider OptionsProvider => new OptionsProviderImpl(this);

    /// <summary>Severities per syntax tree and global.</summary>
    public SyntaxTreeOptionsProvider SeverityProvider => new SeverityProviderImpl(this);

    private AnalyzerConfigOptionsResult For(string path) => _set.GetOptionsForSourcePath(path);

    private sealed class Options(ImmutableDictionary<string, string> values) : AnalyzerConfigOptions
    {
        public override bool TryGetValue(string key, out string value) => values.TryGetValue(key, out value!);

        public override IEnumerable<string> Keys => values.Keys;
    }

    private sealed class OptionsProviderImpl(ProjectAnalyzerConfig config) : AnalyzerConfigOptionsProvider
    {
        private readonly Options _global = new(config._set.GlobalConfigOptions.AnalyzerOptions);

        public override AnalyzerConfigOptions GlobalOptions => _global;

        public override AnalyzerConfigOptions GetOptions(SyntaxTree tree) =>
            new Options(config.For(tree.FilePath).AnalyzerOptions);

        public override AnalyzerConfigOptions GetOptions(AdditionalText textFile) =>
            new Options(config.For(textFile.Path).AnalyzerOptions);
    }

    private sealed class SeverityProviderImpl(ProjectAnalyzerConfig config) : SyntaxTreeOptionsProvider
    {
        public override GeneratedKind IsGenerated(SyntaxTree tree, CancellationToken cancellationToken)
        {
            if (config.For(tree.FilePath).AnalyzerOptions.TryGetValue("generated_code", out string? value) &&
                bool.TryParse(value, out bool generated))
                return generated ? GeneratedKind.MarkedGenerated : GeneratedKind.NotGenerated;
            return GeneratedKind.Unknown;
        }

        public override bool TryGetDiagnosticValue(SyntaxTree tree, string diagnosticId,
            CancellationToken cancellationToken, out ReportDiagnostic severity) =>
            config.For(tree.FilePath).TreeOptions.TryGetValue(diagnosticId, out severity);

        public override bool TryGetGlobalDiagnosticValue(string diagnosticId, CancellationToken cancellationToken,
            out ReportDiagnostic severity) =>
            config._set.GlobalConfigOptions.TreeOptions.TryGetValue(diagnosticId, out severity);
    }
}
