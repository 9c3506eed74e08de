/* The floor for any libpcap reader: open a capture, run libpcap's read loop
 * (pcap_loop) to the end over a 256 KiB stdio buffer, count. The same
 * reading setup as parsers/pcap_reader.cc, so bench/compare_flows.sh's
 * ratio is what ccreplay adds on top of reading. */
#include <pcap/pcap.h>
#include <stdio.h>

static char buffer[256 * 1024];

static void Count(u_char* user, const struct pcap_pkthdr* header,
                  const u_char* data) {
  (void)header;
  (void)data;
  ++*(unsigned long long*)user;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CAPTURE\n", argv[0]);
    return 2;
  }
  FILE* file = fopen(argv[1], "rb");
  if (file == NULL) {
    perror(argv[1]);
    return 1;
  }
  setvbuf(file, buffer, _IOFBF, sizeof buffer);
  char errbuf[PCAP_ERRBUF_SIZE];
  pcap_t* p = pcap_fopen_offline(file, errbuf);
  if (p == NULL) {
    fprintf(stderr, "%s\n", errbuf);
    return 1;
  }
  unsigned long long packets = 0;
  pcap_loop(p, -1, Count, (u_char*)&packets);
  pcap_close(p);
  printf("%llu packets\n", packets);
  return 0;
}
