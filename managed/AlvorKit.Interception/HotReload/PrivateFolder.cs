using System.Runtime.Versioning;
using System.Security.AccessControl;
using System.Security.Principal;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// Who may feed code into the game through a drop folder: only the user the game runs as.
/// <see cref="Prepare"/> creates a missing folder private to that user and refuses a folder
/// anyone else can write to, or swap for another:
/// <list type="bullet">
/// <item>POSIX (Linux, macOS): the folder is a directory, not a link, owned by this process's
/// effective user, with no group or other write bit; every folder above it is owned by that user
/// or root, and is not writable by group or others unless its sticky bit keeps them from
/// renaming what is not theirs (as in /tmp). The same rule as OpenSSH's StrictModes.</item>
/// <item>Windows: the folder is owned by this user, SYSTEM or Administrators, is not a reparse
/// point, and no allow entry of its DACL gives any other account a right to write, append,
/// delete, or change the folder's permissions or owner. A folder it creates gets a protected
/// DACL of this user, SYSTEM and Administrators.</item>
/// </list>
/// </summary>
internal static class PrivateFolder
{
    /// <summary>Creates <paramref name="folder"/> if it is missing, then checks it.</summary>
    /// <returns>The folder's full path.</returns>
    /// <exception cref="UnauthorizedAccessException">Someone else can write there: the message
    /// says who or which bit, and how to make it private.</exception>
    public static string Prepare(string folder)
    {
        string full = Path.TrimEndingDirectorySeparator(Path.GetFullPath(folder));
        if (OperatingSystem.IsWindows())
            PrepareWindows(full);
        else if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS())
            PreparePosix(full);
        else
            throw new PlatformNotSupportedException("hot reload folders are watched on Linux, macOS and Windows");
        return full;
    }

    [UnsupportedOSPlatform("windows")]
    private static void PreparePosix(string folder)
    {
        if (PosixFiles.LinkStatus(folder) is null)
            Directory.CreateDirectory(folder, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        uint me = PosixFiles.EffectiveUser;
        PosixStatus status = PosixFiles.LinkStatus(folder)
            ?? throw new DirectoryNotFoundException($"the drop folder {folder} went away while it was made");
        if (status.IsLink)
            throw Refused(folder, "is a symbolic link (whoever can change the link chooses the folder); give the folder's own path");
        if (!status.IsDirectory)
            throw Refused(folder, "is not a directory");
        if (status.Owner != me)
            throw Refused(folder, $"is owned by user {status.Owner}, not by the user the game runs as ({me}); " +
                                  "make a folder of your own");
        if (status.OthersMayWrite)
            throw Refused(folder, $"can be written by other users (mode {status.Permissions}); make it private: chmod 700 {folder}");
        for (string? above = Path.GetDirectoryName(folder); above is not null; above = Path.GetDirectoryName(above))
        {
            if (PosixFiles.TargetStatus(above) is not { } parent)
                continue;
            if (parent.Owner != me && parent.Owner != 0)
                throw Refused(folder, $"is inside {above}, owned by user {parent.Owner}, who could put another folder in its place");
            if (parent.OthersMayWrite && !parent.Sticky)
                throw Refused(folder, $"is inside {above}, which other users can write to (mode {parent.Permissions}) and so " +
                                      "put another folder in its place; use a folder under your home directory");
        }
    }

    [SupportedOSPlatform("windows")]
    private static void PrepareWindows(string folder)
    {
        using WindowsIdentity identity = WindowsIdentity.GetCurrent();
        SecurityIdentifier me = identity.User ?? throw new UnauthorizedAccessException("this process has no user account");
        var system = new SecurityIdentifier(WellKnownSidType.LocalSystemSid, null);
        var administrators = new SecurityIdentifier(WellKnownSidType.BuiltinAdministratorsSid, null);
        var creatorOwner = new SecurityIdentifier(WellKnownSidType.CreatorOwnerSid, null);
        var directory = new DirectoryInfo(folder);
        if (!directory.Exists)
        {
            var security = new DirectorySecurity();
            security.SetAccessRuleProtection(isProtected: true, preserveInheritance: false);
            foreach (SecurityIdentifier account in new[] { me, system, administrators })
                security.AddAccessRule(new FileSystemAccessRule(account, FileSystemRights.FullControl,
                    InheritanceFlags.ContainerInherit | InheritanceFlags.ObjectInherit, PropagationFlags.None,
                    AccessControlType.Allow));
            security.SetOwner(me);
            directory.Create(security);
            directory.Refresh();
        }
        if ((directory.Attributes & FileAttributes.ReparsePoint) != 0)
            throw Refused(folder, "is a link or junction (whoever can change it chooses the folder); give the folder's own path");
        DirectorySecurity acl = directory.GetAccessControl(AccessControlSections.Owner | AccessControlSections.Access);
        var owner = (SecurityIdentifier?)acl.GetOwner(typeof(SecurityIdentifier));
        if (owner is null || !(owner == me || owner == system || owner == administrators))
            throw Refused(folder, $"is owned by {Account(owner)}, not by the user the game runs as; make a folder of your own");
        const FileSystemRights Writes = FileSystemRights.WriteData | FileSystemRights.AppendData |
            FileSystemRights.WriteExtendedAttributes | FileSystemRights.WriteAttributes | FileSystemRights.Delete |
            FileSystemRights.DeleteSubdirectoriesAndFiles | FileSystemRights.ChangePermissions |
            FileSystemRights.TakeOwnership;
        foreach (FileSystemAccessRule rule in acl.GetAccessRules(includeExplicit: true, includeInherited: true,
                                                                 typeof(SecurityIdentifier)))
        {
            var account = (SecurityIdentifier)rule.IdentityReference;
            if (rule.AccessControlType != AccessControlType.Allow || (rule.FileSystemRights & Writes) == 0)
                continue;
            if (account == me || account == system || account == administrators || account == creatorOwner)
                continue;
            throw Refused(folder, $"lets {Account(account)} write to it ({rule.FileSystemRights}); give only your own " +
                                  "account write access, or let the game create the folder");
        }
    }

    [SupportedOSPlatform("windows")]
    private static string Account(SecurityIdentifier? sid)
    {
        if (sid is null)
            return "no one";
        try
        {
            return sid.Translate(typeof(NTAccount)).Value;
        }
        catch (IdentityNotMappedException)
        {
            return sid.Value;
        }
    }

    private static UnauthorizedAccessException Refused(string folder, string why) =>
        new($"the drop folder {folder} {why}. Anyone who can write to it could change the game's code, so it is not watched.");
}
