using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace AlvorKit.Interception.HotReload;

/// <summary>What <see cref="PosixFiles"/> reads of a file: its type, permission bits, owner and size.</summary>
/// <param name="Mode">st_mode: the type (S_IFMT bits) and the permission bits.</param>
/// <param name="Owner">st_uid.</param>
/// <param name="Size">st_size in bytes.</param>
internal readonly record struct PosixStatus(uint Mode, uint Owner, long Size)
{
    private const uint TypeMask = 0xF000, Regular = 0x8000, Directory = 0x4000, Link = 0xA000;

    public bool IsRegular => (Mode & TypeMask) == Regular;

    public bool IsDirectory => (Mode & TypeMask) == Directory;

    public bool IsLink => (Mode & TypeMask) == Link;

    /// <summary>Writable by the file's group or by everyone (S_IWGRP | S_IWOTH).</summary>
    public bool OthersMayWrite => (Mode & 0x12) != 0;

    /// <summary>S_ISVTX: in a directory, only an entry's owner may rename or remove it (/tmp).</summary>
    public bool Sticky => (Mode & 0x200) != 0;

    /// <summary>The permission bits as people write them ("0777").</summary>
    public string Permissions => "0" + Convert.ToString(Mode & 0xFFF, 8);
}

/// <summary>
/// The few POSIX calls the drop folder's checks need and .NET does not expose: a file's owner
/// and type without following a link (<c>lstat</c>), the same of an open descriptor, an open
/// that refuses a link and does not block on a FIFO, and the effective user. Linux goes
/// through <c>statx</c> (glibc 2.28+), whose structure is the same on x64 and arm64; macOS
/// through <c>lstat</c>/<c>fstat</c> with the arm64 layout (64-bit inodes). The open flags
/// differ by architecture on Linux. Only for the Unix RIDs the product ships (linux-x64,
/// linux-arm64, osx-arm64).
/// </summary>
internal static class PosixFiles
{
    private const int AtFdCwd = -100, AtSymlinkNoFollow = 0x100, AtEmptyPath = 0x1000;
    private const uint StatxType = 0x1, StatxMode = 0x2, StatxUid = 0x8, StatxSize = 0x200;
    private const int StatxBytes = 256, MacStatBytes = 144;

    /// <summary>The user this process acts as.</summary>
    public static uint EffectiveUser => geteuid();

    /// <summary>The status of <paramref name="path"/> itself (a link is not followed); null when
    /// it does not exist.</summary>
    /// <exception cref="IOException">Any other failure, with errno's meaning.</exception>
    public static PosixStatus? LinkStatus(string path) => PathStatus(path, follow: false);

    /// <summary>The status of what <paramref name="path"/> leads to (links followed); null when
    /// it does not exist.</summary>
    public static PosixStatus? TargetStatus(string path) => PathStatus(path, follow: true);

    private static PosixStatus? PathStatus(string path, bool follow)
    {
        if (OperatingSystem.IsMacOS())
        {
            byte[] buffer = new byte[MacStatBytes];
            if ((follow ? stat(path, buffer) : lstat(path, buffer)) != 0)
                return Missing(path);
            return MacStatus(buffer);
        }
        byte[] statx = new byte[StatxBytes];
        if (statx_path(AtFdCwd, path, follow ? 0 : AtSymlinkNoFollow, StatxType | StatxMode | StatxUid | StatxSize, statx) != 0)
            return Missing(path);
        return LinuxStatus(statx);
    }

    /// <summary>The status of an open file.</summary>
    public static PosixStatus Status(SafeFileHandle file)
    {
        bool added = false;
        file.DangerousAddRef(ref added);
        try
        {
            int fd = (int)file.DangerousGetHandle();
            if (OperatingSystem.IsMacOS())
            {
                byte[] buffer = new byte[MacStatBytes];
                if (fstat(fd, buffer) != 0)
                    throw Failure("fstat", Marshal.GetLastPInvokeError());
                return MacStatus(buffer);
            }
            byte[] statx = new byte[StatxBytes];
            if (statx_path(fd, "", AtEmptyPath, StatxType | StatxMode | StatxUid | StatxSize, statx) != 0)
                throw Failure("statx", Marshal.GetLastPInvokeError());
            return LinuxStatus(statx);
        }
        finally
        {
            if (added)
                file.DangerousRelease();
        }
    }

    /// <summary>Opens <paramref name="path"/> for reading, refusing a link in its last component
    /// (O_NOFOLLOW) and without waiting for a writer if it is a FIFO (O_NONBLOCK).</summary>
    /// <exception cref="IOException">It could not be opened (a link gives ELOOP).</exception>
    public static SafeFileHandle OpenForReadNoFollow(string path)
    {
        int fd = open(path, OpenFlags());
        if (fd < 0)
            throw Failure("open " + path, Marshal.GetLastPInvokeError());
        return new SafeFileHandle(fd, ownsHandle: true);
    }

    // O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, spelled per platform.
    private static int OpenFlags()
    {
        if (OperatingSystem.IsMacOS())
            return 0x100 | 0x4 | 0x1000000;
        int noFollow = RuntimeInformation.ProcessArchitecture == Architecture.Arm64 ? 0x8000 : 0x20000;
        return noFollow | 0x800 | 0x80000;
    }

    private static PosixStatus? Missing(string path)
    {
        int errno = Marshal.GetLastPInvokeError();
        const int ENOENT = 2, ENOTDIR = 20;
        if (errno is ENOENT or ENOTDIR)
            return null;
        throw Failure("stat " + path, errno);
    }

    private static IOException Failure(string what, int errno) =>
        new($"{what}: {Marshal.GetPInvokeErrorMessage(errno)} (errno {errno})", errno);

    // struct statx: stx_uid at 20, stx_mode (16 bits) at 28, stx_size at 40.
    private static PosixStatus LinuxStatus(byte[] s) =>
        new(BinaryPrimitives.ReadUInt16LittleEndian(s.AsSpan(28)), BinaryPrimitives.ReadUInt32LittleEndian(s.AsSpan(20)),
            (long)BinaryPrimitives.ReadUInt64LittleEndian(s.AsSpan(40)));

    // macOS arm64 struct stat: st_mode (16 bits) at 4, st_uid at 16, st_size at 96.
    private static PosixStatus MacStatus(byte[] s) =>
        new(BinaryPrimitives.ReadUInt16LittleEndian(s.AsSpan(4)), BinaryPrimitives.ReadUInt32LittleEndian(s.AsSpan(16)),
            BinaryPrimitives.ReadInt64LittleEndian(s.AsSpan(96)));

    [DllImport("libc")]
    private static extern uint geteuid();

    [DllImport("libc", EntryPoint = "statx", SetLastError = true)]
    private static extern int statx_path(int dirfd, [MarshalAs(UnmanagedType.LPUTF8Str)] string path, int flags, uint mask,
                                         [Out] byte[] buffer);

    [DllImport("libc", SetLastError = true)]
    private static extern int lstat([MarshalAs(UnmanagedType.LPUTF8Str)] string path, [Out] byte[] buffer);

    [DllImport("libc", SetLastError = true)]
    private static extern int stat([MarshalAs(UnmanagedType.LPUTF8Str)] string path, [Out] byte[] buffer);

    [DllImport("libc", SetLastError = true)]
    private static extern int fstat(int fd, [Out] byte[] buffer);

    // open(2) is variadic; without O_CREAT its mode is never read, so it is not passed (on
    // macOS arm64 a variadic argument goes on the stack, where a fixed one would not).
    [DllImport("libc", SetLastError = true)]
    private static extern int open([MarshalAs(UnmanagedType.LPUTF8Str)] string path, int flags);
}
