# frozen_string_literal: true

module Wirebind
  module HTTP2
    class Frame
      # The payloads of the control frames (RFC 9113 section 6), as binary
      # records like the frame header: read with +Binary.decode(frame.payload,
      # Frame::WindowUpdate)+ once the frame's length is checked, written with
      # +Binary.encode+.

      # One SETTINGS parameter (section 6.5.1): a payload is a run of them.
      class Setting
        include Wirebind::Model

        binary do
          field :id, :u16
          field :value, :u32
        end
      end

      # PRIORITY's payload, and the priority fields of HEADERS with PRIORITY (section 6.3).
      class Priority
        include Wirebind::Model

        binary do
          bits :exclusive, 1
          bits :dependency, 31
          field :weight, :u8
        end
      end

      # RST_STREAM (section 6.4).
      class RstStream
        include Wirebind::Model

        binary do
          field :error_code, :u32
        end
      end

      # GOAWAY (section 6.8): the debug data is the rest of the payload.
      class GoAway
        include Wirebind::Model

        binary do
          bits :reserved, 1
          bits :last_stream_id, 31
          field :error_code, :u32
          payload :debug, length: nil
        end
      end

      # WINDOW_UPDATE (section 6.9).
      class WindowUpdate
        include Wirebind::Model

        binary do
          bits :reserved, 1
          bits :increment, 31
        end
      end
    end
  end
end
