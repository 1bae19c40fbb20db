using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The reports are read strictly: a report that does not fit its record fails the read with
/// the process's output, instead of giving the proof a default or a null to assert on.
/// </summary>
[Trait("Feature", "Proof harness")]
public sealed class ReportContractProofs
{
    private static ProcessResult Printed(string json) => new(0, $"not a report\n{json}\n", "");

    [Fact]
    public void AReportThatFitsItsRecordIsRead()
    {
        CommandOutcome outcome = Printed("""{"sync":"Ok","wait":null}""").Report<CommandOutcome>();
        Assert.Equal(new CommandOutcome("Ok", null), outcome);
    }

    [Theory]
    [InlineData("""{"sync":"Ok"}""")] // a property the record has is missing
    [InlineData("""{"synced":"Ok","wait":"Ok"}""")] // a property renamed
    [InlineData("""{"sync":"Ok","wait":"Ok","extra":1}""")] // a property the record does not have
    [InlineData("""{"sync":null,"wait":"Ok"}""")] // null where the record has no null
    [InlineData("""{"sync":7,"wait":"Ok"}""")] // a value of another type
    public void AReportThatDoesNotFitItsRecordFailsTheRead(string json)
    {
        var e = Assert.Throws<InvalidOperationException>(() => Printed(json).Report<CommandOutcome>());
        Assert.Contains("the report is not a CommandOutcome", e.Message);
        Assert.Contains(json, e.Message);
    }

    [Fact]
    public void AProcessWithoutAReportFailsTheRead()
    {
        var e = Assert.Throws<InvalidOperationException>(() => new ProcessResult(1, "no json", "oops").Report<StatusReport>());
        Assert.Contains("no JSON report in stdout", e.Message);
    }
}
